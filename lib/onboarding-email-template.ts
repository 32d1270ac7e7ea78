/**
 * The SES template that carries an onboarding token. Deployed by the mail construct and created
 * in the local SES emulator by the local stack. Variables: firstName, lastName, token,
 * expiresOn (YYYY-MM-DD), organizationName.
 */
export const onboardingEmailTemplate = {
  templateName: 'onboarding-token',
  subject: 'Your onboarding code for {{organizationName}}',
  text: [
    'Hello {{firstName}} {{lastName}},',
    '',
    '{{organizationName}} has invited you to complete your onboarding.',
    'Your onboarding code is:',
    '',
    '    {{token}}',
    '',
    'The code is valid until {{expiresOn}}. If you did not expect this message, you can ignore it.',
  ].join('\n'),
  html: [
    '<p>Hello {{firstName}} {{lastName}},</p>',
    '<p>{{organizationName}} has invited you to complete your onboarding. Your onboarding code is:</p>',
    '<p style="font-family:monospace;font-size:18px"><strong>{{token}}</strong></p>',
    '<p>The code is valid until {{expiresOn}}. If you did not expect this message, you can ignore it.</p>',
  ].join('\n'),
} as const;
