import { inject } from 'vitest';

/** An e-mail as the local SES emulator rendered and stored it. */
export interface StoredEmail {
  destination: { to: string[] };
  subject: string;
  body: { text: string; html: string };
}

/** Every e-mail the tier's SES emulator has stored for `address`. */
export async function emailsTo(address: string): Promise<StoredEmail[]> {
  const store = (await (await fetch(`${inject('endpoints').ses}/store`)).json()) as { emails: StoredEmail[] };
  return store.emails.filter((email) => email.destination.to.includes(address));
}
