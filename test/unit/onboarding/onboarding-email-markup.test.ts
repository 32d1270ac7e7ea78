import { createRequire } from 'node:module';
import { compileTemplateParts } from 'aws-ses-v2-local/dist/v2/renderTemplate.js';
import { describe, expect, it } from 'vitest';
import { onboardingEmailTemplate } from '#shared/adapters/ses/onboarding-email-template.ts';
import { escapeHtml } from '#shared/adapters/html/escape-html.ts';
import { onboardingTemplateData } from '#shared/adapters/ses/onboarding-mailer.ts';
import { renderOnboardingTemplate } from '#shared/adapters/ses/render-onboarding-email.ts';

/**
 * Contract §15: names reach e-mails as text. The HTML part is rendered here the two ways a
 * Handlebars SES template can be: as the local SES emulator does (aws-ses-v2-local's own renderer,
 * `noEscape`) and with Handlebars' default escaping of `{{…}}` (the same Handlebars the emulator
 * uses). Under both, a name's markup must arrive as escaped text, escaped exactly once.
 */
const requireFromEmulator = createRequire(createRequire(import.meta.url).resolve('aws-ses-v2-local'));
const handlebars = requireFromEmulator('handlebars') as typeof import('handlebars');

const parts = {
  Subject: onboardingEmailTemplate.subject,
  Text: onboardingEmailTemplate.text,
  Html: onboardingEmailTemplate.html,
};
const renderers = {
  'the local SES emulator (no escaping)': (data: Record<string, string>) => compileTemplateParts(parts)(data),
  'Handlebars with its default escaping': (data: Record<string, string>) => ({
    subject: handlebars.compile(parts.Subject)(data),
    text: handlebars.compile(parts.Text)(data),
    html: handlebars.compile(parts.Html)(data),
  }),
  'the sandbox mailbox (renders without sending)': renderOnboardingTemplate,
};

const LINK = '<a href="https://evil.example/login">x</a>';
const email = (names: { firstName?: string; lastName?: string; organizationName?: string }) => ({
  orgId: 'acme',
  tokenId: '0b9c7a52-7f1e-4c3a-9d55-2f3a8e1c6b40',
  to: 'ada@example.org',
  firstName: names.firstName ?? 'Ada',
  lastName: names.lastName ?? 'Lovelace',
  token: 'tok_abcdefghijklmnopqrstuvwxyz012345',
  expiresAt: new Date('2026-12-07T10:00:00Z'),
  organizationName: names.organizationName ?? 'Acme Health',
});

describe.each(Object.entries(renderers))('the onboarding e-mail rendered by %s', (_name, render) => {
  it('puts a first name holding a link into the HTML part as text, not as a link', () => {
    const { html } = render(onboardingTemplateData(email({ firstName: LINK })));

    expect(html).toContain('&lt;a href&#x3D;&quot;https://evil.example/login&quot;&gt;x&lt;/a&gt;');
    expect(html).not.toContain('<a href');
    expect(html).not.toContain('evil.example/login">');
  });

  it('never lets <, >, &, " or \' of a name or organization become markup, and escapes them once', () => {
    const { html } = render(
      onboardingTemplateData(
        email({
          firstName: `"><img src=x onerror=alert(1)>`,
          lastName: `O'Brien & Sons <script>`,
          organizationName: `<b>Acme</b> & 'Co'`,
        }),
      ),
    );

    expect(html).not.toMatch(/<img|<script|<b>/);
    expect(html).toContain('&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
    expect(html).toContain('O&#x27;Brien &amp; Sons &lt;script&gt;');
    expect(html).toContain('&lt;b&gt;Acme&lt;/b&gt; &amp; &#x27;Co&#x27;');
    expect(html).not.toContain('&amp;amp;');
    expect(html).not.toContain('&amp;lt;');
    // Only the template's own four paragraphs and one <strong> are markup.
    expect(html.match(/<[a-z]/g)).toHaveLength(5);
  });

  it('keeps the subject and the text part (not HTML) as the names were typed', () => {
    const { subject, text } = render(
      onboardingTemplateData(email({ firstName: LINK, lastName: 'Ångström', organizationName: 'R&D <Labs>' })),
    );

    expect(subject).toBe('Your onboarding code for R&D <Labs>');
    expect(text).toContain(`Hello ${LINK} Ångström,`);
    expect(text).toContain('tok_abcdefghijklmnopqrstuvwxyz012345');
    expect(text).toContain('R&D <Labs> has invited you');
    expect(text).not.toMatch(/&(amp|lt|gt|quot|#x27|#x3D);/);
  });

  it('renders an ordinary name unchanged, accents and scripts included', () => {
    const { html } = render(onboardingTemplateData(email({ firstName: 'Zoë', lastName: 'כהן' })));
    expect(html).toContain('<p>Hello Zoë כהן,</p>');
    expect(html).toContain('<strong>tok_abcdefghijklmnopqrstuvwxyz012345</strong>');
    expect(html).toContain('valid until 2026-12-07.');
  });
});

describe('the onboarding template and its data', () => {
  it('inserts into the HTML part only values the mailer escaped, with the triple-stash that does not escape twice', () => {
    const placeholders = [...onboardingEmailTemplate.html.matchAll(/\{\{\{?\s*([^}]*?)\s*\}?\}\}/g)].map((m) => m[0]);
    expect(placeholders.length).toBeGreaterThan(0);
    for (const placeholder of placeholders) expect(placeholder).toMatch(/^\{\{\{[A-Za-z]+Html\}\}\}$/);
    // No other Handlebars syntax (helpers, blocks, partials, comments) in any part.
    for (const part of Object.values(parts)) {
      expect(part.replace(/\{\{\{[A-Za-z]+\}\}\}/g, '')).not.toMatch(/\{\{|\}\}/);
    }
  });

  it('gives every variable the template uses, the HTML ones escaped and the others as typed', () => {
    const data = onboardingTemplateData(email({ firstName: LINK }));
    const used = new Set(
      [
        ...Object.values(parts)
          .join('\n')
          .matchAll(/\{\{\{([A-Za-z]+)\}\}\}/g),
      ].map((m) => m[1] as string),
    );
    expect(new Set(Object.keys(data))).toEqual(used);
    expect(data.firstName).toBe(LINK);
    expect(data.firstNameHtml).toBe(escapeHtml(LINK));
    expect(data.expiresOn).toBe('2026-12-07');
  });

  it('escapes the characters Handlebars escapes, as Handlebars does', () => {
    const sample = `& < > " ' \` = plain Ünïcödé`;
    expect(escapeHtml(sample)).toBe(handlebars.Utils.escapeExpression(sample));
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
  });
});
