import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

/**
 * Every listener of the local stack is on loopback, so nothing it serves (the API with its
 * development sign-in, the users database, the emulators that accept any credentials) is reachable
 * from the network. The one exception is DynamoDB Local, which has no bind option
 * (docs/configuration.md#local-stack). Read from the kernel (Linux `/proc`), not from what the code
 * asked for: an emulator may ignore its host option (fauxqs does).
 */

interface ListeningSocket {
  address: string;
  port: number;
  loopback: boolean;
  inode: string;
}

const LISTEN = '0A';

/** `/proc/net/tcp` addresses are hex words in host byte order (little-endian here). */
function ipv4(hex: string): string {
  return Buffer.from(hex, 'hex').reverse().join('.');
}

function ipv6(hex: string): string {
  const bytes = Buffer.concat(
    [0, 8, 16, 24].map((offset) => Buffer.from(hex.slice(offset, offset + 8), 'hex').reverse()),
  );
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  return groups.join(':');
}

function listeningSockets(): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this machine
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1]!, fields[3]!, fields[9]!];
      if (state !== LISTEN) continue;
      const [hexAddress, hexPort] = local.split(':') as [string, string];
      const address = v6 ? ipv6(hexAddress) : ipv4(hexAddress);
      const mappedV4 = v6 && address.startsWith('0:0:0:0:0:ffff:') ? ipv4(hexAddress.slice(24)) : undefined;
      const loopback = v6
        ? address === '0:0:0:0:0:0:0:1' || (mappedV4?.startsWith('127.') ?? false)
        : address.startsWith('127.');
      sockets.push({ address: v6 ? `[${address}]` : address, port: parseInt(hexPort, 16), loopback, inode });
    }
  }
  return sockets;
}

/** Field 4 of `/proc/<pid>/stat`; the command name (field 2) may hold spaces and parentheses. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** A process and all its descendants. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = parentOf(Number(entry));
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // ended while we read
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/** The process holding each socket open (`/proc/<pid>/fd/* -> socket:[inode]`), by inode. */
function socketOwners(): Map<string, number> {
  const owners = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // ended, or not ours to read
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (match) owners.set(match[1]!, Number(entry));
      } catch {
        // closed while we read
      }
    }
  }
  return owners;
}

const portOf = (url: string): number => Number(new URL(url).port);

describe.runIf(process.platform === 'linux')('the local stack listens on loopback only', () => {
  it('binds the router, PostgreSQL and the SQS, S3 and SES emulators to 127.0.0.1; DynamoDB Local alone is the exception', () => {
    const endpoints = inject('endpoints');
    const usersDatabase = inject('usersDatabase');
    const ports = {
      router: portOf(inject('baseUrl')),
      postgres: usersDatabase.port,
      sqs: portOf(endpoints.sqs),
      s3: portOf(endpoints.s3),
      ses: portOf(endpoints.ses),
      dynamodb: portOf(endpoints.dynamodb),
    };
    // The process running the stack (vitest's global setup) holds the router's socket; the
    // emulators run in it or in its descendants (DynamoDB Local's Java, PostgreSQL).
    const owners = socketOwners();
    const all = listeningSockets();
    const routerOwner = all.filter((s) => s.port === ports.router).map((s) => owners.get(s.inode))[0];
    expect(routerOwner, `the process listening on the router's port ${ports.router}`).toBeDefined();
    const stackProcesses = new Set(processTree(routerOwner!));
    const stackPorts = new Set(Object.values(ports));
    const listening = all.filter(
      (socket) => stackPorts.has(socket.port) && stackProcesses.has(owners.get(socket.inode) ?? -1),
    );

    // Every port is found (the parse and the process tree are right) ...
    for (const [name, port] of Object.entries(ports)) {
      expect(
        listening.some((socket) => socket.port === port),
        `${name} (port ${port}) listens`,
      ).toBe(true);
    }
    // ... and none but DynamoDB Local's is bound to a wildcard or another non-loopback address.
    const exposed = listening
      .filter((socket) => !socket.loopback && socket.port !== ports.dynamodb)
      .map((socket) => {
        const name = Object.entries(ports).find(([, port]) => port === socket.port)![0];
        return `${name} on ${socket.address}:${socket.port}`;
      });
    expect(exposed).toEqual([]);
  });
});
