/**
 * The SES template that carries an onboarding token. Deployed by the mail construct and created
 * in the local SES emulator by the local stack. Variables (all text, from the mailer): firstName,
 * lastName, token, expiresOn (YYYY-MM-DD), organizationName; and the same five HTML-escaped, for
 * the HTML part: firstNameHtml, lastNameHtml, tokenHtml, expiresOnHtml, organizationNameHtml.
 *
 * Names reach e-mails as text (contract §15): the HTML part inserts only the `…Html` values, which
 * the mailer has escaped (`&`, `<`, `>`, `"`, `'`, `` ` ``, `=`), and inserts them with the
 * triple-stash `{{{…}}}`, which never escapes again. Why not plain `{{firstName}}`: whether it
 * escapes depends on the renderer. Handlebars' default does; the local SES emulator renders with
 * `noEscape` (its authors say SES renders raw), where `{{firstName}}` would put a name's
 * `<a href=…>` into the HTML as markup. Escaping in the mailer and inserting with `{{{…}}}` gives
 * the same, once-escaped HTML under either renderer. The subject and the text part are not HTML:
 * they take the raw values, also with `{{{…}}}`, so a renderer that escapes shows no `&amp;` there.
 */
export const onboardingEmailTemplate = {
  // Versioned: a template whose data changed gets a new name, so during a deploy the old functions
  // keep the old template until CloudFormation removes it after every function was updated.
  templateName: 'onboarding-token-v2',
  subject: 'Your onboarding code for {{{organizationName}}}',
  text: [
    'Hello {{{firstName}}} {{{lastName}}},',
    '',
    '{{{organizationName}}} has invited you to complete your onboarding.',
    'Your onboarding code is:',
    '',
    '    {{{token}}}',
    '',
    'The code is valid until {{{expiresOn}}}. If you did not expect this message, you can ignore it.',
  ].join('\n'),
  html: [
    '<p>Hello {{{firstNameHtml}}} {{{lastNameHtml}}},</p>',
    '<p>{{{organizationNameHtml}}} has invited you to complete your onboarding. Your onboarding code is:</p>',
    '<p style="font-family:monospace;font-size:18px"><strong>{{{tokenHtml}}}</strong></p>',
    '<p>The code is valid until {{{expiresOnHtml}}}. If you did not expect this message, you can ignore it.</p>',
  ].join('\n'),
} as const;
