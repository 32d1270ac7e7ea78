import { describe, expect, it } from 'vitest';
import { addressRefusal, UnsafeWebhookUrlError, vetWebhookUrl } from '#shared/domain/webhooks/ssrf-guard.ts';
import { fixedResolver } from './fakes.ts';

const AWS = { localMode: false };
const LOCAL = { localMode: true };
const resolver = fixedResolver({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.20.30.40'],
  'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
  'compatible.example.com': ['93.184.216.34', '::7f00:1'],
  'compatible-dotted.example.com': ['::169.254.169.254'],
  'compatible-public.example.com': ['::8.8.8.8'],
});

describe('the SSRF guard in AWS mode', () => {
  it.each([
    ['https://10.0.0.1/', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:7f00:1]/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://0x7f.0.0.1/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[fd12:3456::1]/', 'uniqueLocal'],
    ['https://[fe80::1]/', 'linkLocal'],
    ['https://100.64.0.1/', 'carrierGradeNat'],
    ['https://192.168.0.10/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://224.0.0.251/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://255.255.255.255/', 'broadcast'],
  ])('refuses %s (%s)', async (url, range) => {
    await expect(vetWebhookUrl(url, AWS, resolver)).rejects.toThrow(range);
  });

  it.each(['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::ffff:127.0.0.1]/', 'http://hooks.example.com/'])(
    'refuses %s: http is for local mode only',
    async (url) => {
      await expect(vetWebhookUrl(url, AWS, resolver)).rejects.toThrow('https');
    },
  );

  it.each([
    ['https://internal.example.com/hook', '10.20.30.40'],
    ['https://metadata.example.com/', '169.254.169.254'],
    ['https://rebind.example.com/', '127.0.0.1'],
    ['https://mapped.example.com/', '::ffff:192.168.1.1'],
  ])('refuses %s, a name with a non-public address among its answers (%s)', async (url, address) => {
    await expect(vetWebhookUrl(url, AWS, resolver)).rejects.toThrow(address);
  });

  it('refuses a name that does not resolve, credentials in the URL, and what is not a URL', async () => {
    await expect(vetWebhookUrl('https://nowhere.example.com/', AWS, resolver)).rejects.toThrow('resolve');
    await expect(vetWebhookUrl('https://user:pw@hooks.example.com/', AWS, resolver)).rejects.toThrow('credentials');
    await expect(vetWebhookUrl('not a url', AWS, resolver)).rejects.toThrow('absolute URL');
    await expect(vetWebhookUrl('ftp://hooks.example.com/', AWS, resolver)).rejects.toThrow('https');
  });

  it('accepts a public https URL and names the address it checked, for the connection', async () => {
    const target = await vetWebhookUrl('https://hooks.example.com/in?x=1', AWS, resolver);
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(target.url.href).toBe('https://hooks.example.com/in?x=1');
    await expect(vetWebhookUrl('https://8.8.8.8/', AWS, resolver)).resolves.toMatchObject({ address: '8.8.8.8' });
  });
});

describe('the SSRF guard and IPv4-compatible IPv6 (::/96), contract §15', () => {
  it.each([
    ['https://[::127.0.0.1]/', '127.0.0.1', 'loopback'],
    ['https://[::7f00:1]/', '127.0.0.1', 'loopback'],
    ['https://[0:0:0:0:0:0:127.0.0.1]/', '127.0.0.1', 'loopback'],
    ['https://[::a9fe:a9fe]/', '169.254.169.254', 'linkLocal'],
    ['https://[::169.254.169.254]/', '169.254.169.254', 'linkLocal'],
    ['https://[::a00:1]/', '10.0.0.1', 'private'],
    ['https://[::192.168.1.1]/', '192.168.1.1', 'private'],
    ['https://[::6440:1]/', '100.64.0.1', 'carrierGradeNat'],
    ['https://[::0.0.0.2]/', '0.0.0.2', 'unspecified'],
  ])('refuses %s, judged by the IPv4 address it carries (%s, %s)', async (url, carried, range) => {
    const refusal = vetWebhookUrl(url, AWS, resolver);
    await expect(refusal).rejects.toThrow(UnsafeWebhookUrlError);
    await expect(refusal).rejects.toThrow(
      `IPv4-compatible IPv6 (::/96, refused whatever it carries) carrying ${carried}`,
    );
    await expect(refusal).rejects.toThrow(`in the ${range} range`);
  });

  it('refuses one carrying a public address too (::8.8.8.8): the IPv4 address itself is the way to reach it', async () => {
    await expect(vetWebhookUrl('https://[::8.8.8.8]/', AWS, resolver)).rejects.toThrow(
      'url host ::808:808 is IPv4-compatible IPv6 (::/96, refused whatever it carries) carrying 8.8.8.8: use the IPv4 address itself',
    );
    await expect(vetWebhookUrl('https://[::808:808]/', AWS, resolver)).rejects.toThrow('carrying 8.8.8.8');
    await expect(vetWebhookUrl('https://8.8.8.8/', AWS, resolver)).resolves.toMatchObject({ address: '8.8.8.8' });
  });

  it('refuses them in local mode as well, where loopback itself is allowed', async () => {
    await expect(vetWebhookUrl('http://[::127.0.0.1]:8080/', LOCAL, resolver)).rejects.toThrow('carrying 127.0.0.1');
    await expect(vetWebhookUrl('http://[::7f00:1]:8080/', LOCAL, resolver)).rejects.toThrow('carrying 127.0.0.1');
    await expect(vetWebhookUrl('http://127.0.0.1:8080/', LOCAL, resolver)).resolves.toMatchObject({ family: 4 });
  });

  it.each([
    ['https://compatible.example.com/', '::7f00:1', 'loopback'],
    ['https://compatible-dotted.example.com/', '::169.254.169.254', 'linkLocal'],
    ['https://compatible-public.example.com/', '::8.8.8.8', 'use the IPv4 address itself'],
  ])('refuses %s, a name answering with one (%s)', async (url, address, why) => {
    await expect(vetWebhookUrl(url, AWS, resolver)).rejects.toThrow(`url host ${address} is IPv4-compatible IPv6`);
    await expect(vetWebhookUrl(url, AWS, resolver)).rejects.toThrow(why);
  });

  it('classifies addresses: ::/96 refused, while :: and ::1 keep their ranges and IPv4-mapped is judged as before', () => {
    expect(addressRefusal('::7f00:1', AWS)).toMatch(/carrying 127\.0\.0\.1, in the loopback range$/);
    // ipaddr.js alone reads the dotted spelling as IPv4-mapped (::ffff:8.8.8.8, public): not here.
    expect(addressRefusal('::8.8.8.8', AWS)).toMatch(/carrying 8\.8\.8\.8: use the IPv4 address itself$/);
    expect(addressRefusal('::', AWS)).toBe('is in the unspecified range');
    expect(addressRefusal('::', LOCAL)).toBe('is in the unspecified range');
    expect(addressRefusal('::1', AWS)).toBe('is in the loopback range');
    expect(addressRefusal('::1', LOCAL)).toBeUndefined();
    expect(addressRefusal('::ffff:8.8.8.8', AWS)).toBeUndefined();
    expect(addressRefusal('::FFFF:127.0.0.1', AWS)).toBe('is in the loopback range');
    expect(addressRefusal('::ffff:7f00:1', LOCAL)).toBeUndefined();
    expect(addressRefusal('64:ff9b::7f00:1', AWS)).toBe('is in the rfc6052 range');
    expect(addressRefusal('2606:2800:220:1:248:1893:25c8:1946', AWS)).toBeUndefined();
  });
});

describe('the SSRF guard in local mode', () => {
  it('allows http and loopback receivers on this machine', async () => {
    await expect(vetWebhookUrl('http://127.0.0.1:8080/', LOCAL, resolver)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(vetWebhookUrl('http://[::1]:8080/', LOCAL, resolver)).resolves.toMatchObject({ family: 6 });
  });

  it('still refuses private, link-local and metadata addresses', async () => {
    await expect(vetWebhookUrl('http://10.0.0.1/', LOCAL, resolver)).rejects.toThrow('private');
    await expect(vetWebhookUrl('http://169.254.169.254/', LOCAL, resolver)).rejects.toThrow('linkLocal');
    await expect(vetWebhookUrl('http://internal.example.com/', LOCAL, resolver)).rejects.toThrow('private');
  });

  it('classifies addresses with ipaddr.js ranges', () => {
    expect(addressRefusal('8.8.8.8', AWS)).toBeUndefined();
    expect(addressRefusal('::ffff:10.0.0.1', AWS)).toBe('is in the private range');
    expect(addressRefusal('not-an-ip', AWS)).toBe('is not an IP address');
  });
});
