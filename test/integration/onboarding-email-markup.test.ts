import { describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { emailsTo } from '#test/support/ses-inbox.ts';

/** Contract §15, through the local stack: the e-mail as the SES emulator rendered and stored it. */

const uniqueEmail = () => `markup-${Math.random().toString(36).slice(2, 10)}@example.com`;
const LINK = '<a href="https://evil.example/login">x</a>';

describe('names in the onboarding e-mail', () => {
  it('reach the HTML part as text: a first name holding a link is escaped, not a link', async () => {
    const email = uniqueEmail();
    const token = await tokenFor(uniqueOrg(), { orgName: `<b>R&D</b> 'Labs'` });

    const response = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { email, first_name: LINK, last_name: `O'Brien & "Sons"` },
    });
    expect(response.status).toBe(201);

    const [sent] = await emailsTo(email);
    expect(sent).toBeDefined();
    const html = sent!.body.html;
    expect(html).toContain('&lt;a href');
    expect(html).not.toContain('<a href="https://evil');
    expect(html).not.toMatch(/<a\b|<b>/);
    expect(html).toContain('O&#x27;Brien &amp; &quot;Sons&quot;');
    expect(html).toContain('&lt;b&gt;R&amp;D&lt;/b&gt; &#x27;Labs&#x27;');
    expect(html).toContain(`<strong>${response.body.onboarding_token}</strong>`);

    // The subject and the text part are not HTML: they carry the names as typed.
    expect(sent!.subject).toBe(`Your onboarding code for <b>R&D</b> 'Labs'`);
    expect(sent!.body.text).toContain(`Hello ${LINK} O'Brien & "Sons",`);
  });
});
