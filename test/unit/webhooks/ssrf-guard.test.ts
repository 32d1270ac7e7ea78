import { describe, expect, it } from 'vitest';
import { addressRefusal, vetWebhookUrl } from '../../../shared/domain/webhooks/ssrf-guard.ts';
import { fixedResolver } from './fakes.ts';

const AWS = { localMode: false };
const LOCAL = { localMode: true };
const resolver = fixedResolver({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.20.30.40'],
  'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
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
