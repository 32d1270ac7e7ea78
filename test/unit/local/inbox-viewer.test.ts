import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInboxViewer, INBOX_PATH, renderInbox } from '#local/inbox-viewer.ts';

const hostile = {
  messageId: 'm1',
  at: 1_772_366_400,
  subject: 'Welcome <b>Zoë</b>',
  from: 'no-reply@onboarding.local',
  destination: { to: ['zoe@example.com'] },
  body: {
    html: '<p>Hi</p><img src=x onerror="alert(1)"><script>alert(2)</script>" onload="alert(3)',
    text: 'Hi <script>alert(4)</script>',
  },
};

describe('the local inbox viewer', () => {
  it('puts e-mail HTML only into a sandboxed srcdoc frame, escaped, never into the page', () => {
    const page = renderInbox([hostile]);

    const frames = [...page.matchAll(/<iframe ([^>]*)>/g)].map((match) => match[1]!);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatch(/^sandbox="" /);
    expect(frames[0]).toContain(
      'srcdoc="&lt;p&gt;Hi&lt;/p&gt;&lt;img src&#x3D;x onerror&#x3D;&quot;alert(1)&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;&quot; onload&#x3D;&quot;alert(3)"',
    );
    // Nothing of the e-mail is markup of the page: no script, no handler, no element it brought.
    expect(page).not.toMatch(/<script|<img|<b>Zoë|onerror="|onload="/);
    expect(page).toContain('Welcome &lt;b&gt;Zoë&lt;/b&gt;');
    expect(page).toContain('Hi &lt;script&gt;alert(4)&lt;/script&gt;');
  });

  describe('served', () => {
    let ses: Server;
    let router: Server;
    let baseUrl = '';
    beforeAll(async () => {
      ses = createServer((_req, res) => res.end(JSON.stringify({ emails: [hostile], templates: {} })));
      await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
      const viewer = createInboxViewer({ sesEndpoint: `http://127.0.0.1:${(ses.address() as AddressInfo).port}` });
      router = createServer((req, res) => {
        void viewer(req, res).then((handled) => {
          if (!handled) res.writeHead(404).end();
        });
      });
      await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => router.close(resolve));
      await new Promise((resolve) => ses.close(resolve));
    });

    it('answers with a Content Security Policy that runs no script in the page', async () => {
      const response = await fetch(`${baseUrl}${INBOX_PATH}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toMatch(/script-src/);
      expect(await response.text()).toContain('<iframe sandbox=""');
    });

    it('leaves every other path to the rest of the router', async () => {
      expect((await fetch(`${baseUrl}/local/other`)).status).toBe(404);
    });
  });
});
