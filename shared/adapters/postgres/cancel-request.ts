import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';

/**
 * PostgreSQL's CancelRequest: on a connection of its own, the backend's process id and secret
 * key (from BackendKeyData at login) ask the server to stop that backend's running statement.
 * Closing the statement's own connection is not enough: the server notices a gone client only
 * when it next writes to it, so a cut-off `count(*)` would run on to its end. Over TLS (DSQL) the
 * request follows an SSLRequest and the handshake, as a login does. Best effort: whatever fails,
 * it resolves, within `timeoutMs`.
 */

export interface CancelTarget {
  host: string;
  port: number;
  tls: boolean;
}

export interface BackendKey {
  processID: number;
  secretKey: number;
}

const SSL_REQUEST_CODE = 80877103;
const CANCEL_REQUEST_CODE = 80877102;

export function sendCancelRequest(target: CancelTarget, backend: BackendKey, timeoutMs = 250): Promise<void> {
  const cancel = Buffer.alloc(16);
  cancel.writeInt32BE(16, 0);
  cancel.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  cancel.writeInt32BE(backend.processID, 8);
  cancel.writeInt32BE(backend.secretKey, 12);
  return new Promise((resolve) => {
    const socket = connectTcp(target.port, target.host);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('error', finish);
    socket.on('close', finish);
    socket.once('connect', () => {
      if (!target.tls) {
        // The server answers nothing and closes the connection once it has read the request.
        socket.end(cancel);
        return;
      }
      const sslRequest = Buffer.alloc(8);
      sslRequest.writeInt32BE(8, 0);
      sslRequest.writeInt32BE(SSL_REQUEST_CODE, 4);
      socket.write(sslRequest);
      socket.once('data', (answer) => {
        if (answer.toString('latin1', 0, 1) !== 'S') return finish();
        const secure = connectTls({ socket, servername: target.host, rejectUnauthorized: true });
        secure.on('error', finish);
        secure.on('close', finish);
        secure.once('secureConnect', () => secure.end(cancel));
      });
    });
  });
}
