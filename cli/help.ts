/** The CLI's help texts, one per command group and command. */

export const EXIT_CODES_HELP = `Exit status:
  0    done
  1    the API answered with an error or could not be reached (the message names the
       status, the error and the request id)
  2    usage error: unknown command or option, bad value, no token
  3    the report job FAILED, or was not COMPLETE within 5 minutes (treated as failed)
  4    the report could not be downloaded, or its bytes did not match the job's size and
       SHA-256 (no file is kept)
  5    report verify: the report's signature is not valid, or not by a published certificate
  130  interrupted (Ctrl-C, also how listen stops); a report job keeps running on the server`;

const CONNECTION_HELP = `Connection (every command):
  --api-url <url>      base URL of the API; default $API_URL, else http://127.0.0.1:3000
                       (the local stack, npm start)
  --token <jwt>        bearer token; default $API_TOKEN. For the local stack:
                       export API_TOKEN=$(npm run -s token -- --org demo-org)
  -h, --help           help for the command`;

export const MAIN_HELP = `Usage: onboarding <command> [options]

Client of the onboarding, report and user-status API.

Commands:
  token create         create an onboarding token and e-mail it to the user
  token list           list the organization's onboarding tokens
  token redeem         exchange a token an end user typed for the person it was issued to
  token revoke         revoke an Issued token
  token resend         issue a new token to the same person and e-mail it (the old one is revoked)
  report create        request a PDF report about a user; --wait polls it, --out downloads it
  report status        show a report job
  report download      download a completed report and verify it
  report verify        check a downloaded report's signature against the published certificates
  users query          query user records (table or --json)
  users erase          erase a user, their reports and the tokens sent to their e-mail
  webhook create       register a webhook endpoint (prints its signing secret once)
  webhook list         list the organization's webhook endpoints
  webhook delete       delete a webhook endpoint
  webhook test         send a webhook.test message to an endpoint
  webhook deliveries   show an endpoint's delivery log
  audit list           show the organization's audit trail (who did what), newest first
  trigger              sandbox: make the objects behind a webhook event and send its message
  listen               sandbox: forward the sandbox's webhook messages to a local URL

Run "onboarding <command> --help" for the options of a command.

${CONNECTION_HELP}

${EXIT_CODES_HELP}`;

export const TOKEN_HELP = `Usage: onboarding token <create|list|redeem|revoke|resend> [options]

  token create --email <address> --first-name <name> --last-name <name>
  token list [--limit <n>] [--cursor <cursor>] [--status <status>]
  token redeem <token>
  token revoke <tokenId>
  token resend <tokenId>

Run "onboarding token <command> --help" for details.`;

export const TOKEN_CREATE_HELP = `Usage: onboarding token create --email <address> --first-name <name> --last-name <name> [options]

Creates an onboarding token for an end user, valid 14 days, and e-mails it to them
(POST /v1/onboarding-token, scope onboarding:write). Prints the token and its expiry.

Options:
  --email <address>         the user's e-mail address (required)
  --first-name <name>       (required)
  --last-name <name>        (required)
  --idempotency-key <key>   makes a retry of this exact request safe (replays the first answer)
  --json                    print the response body as JSON

${CONNECTION_HELP}

A live token for the same e-mail already exists: exit 1 with 409 CONFLICT.`;

export const TOKEN_LIST_HELP = `Usage: onboarding token list [--limit <n>] [--cursor <cursor>] [--json]

Lists the organization's onboarding tokens, newest first (GET /v1/onboarding-tokens, scope
onboarding:read). The last line names the cursor of the next page, if there is one.

Options:
  --limit <n>          tokens per page, 1-100 (default 25)
  --cursor <cursor>    the next-page cursor a previous call printed
  --status <status>    only tokens that are Issued, Used, Expired or Revoked
  --json               print the response body as JSON

${CONNECTION_HELP}`;

export const TOKEN_REDEEM_HELP = `Usage: onboarding token redeem <token> [--json]

Exchanges the token an end user typed for the person it was issued to, once
(POST /v1/onboarding-token/redeem, scope onboarding:redeem). The token becomes Used.

Options:
  --json    print the response body as JSON

${CONNECTION_HELP}

Not Issued (Used, Expired or Revoked): exit 1 with 409 and its tokenStatus. Unknown: 404.`;

export const TOKEN_REVOKE_HELP = `Usage: onboarding token revoke <tokenId>

Revokes an Issued token; its e-mail address is free for a new token at once
(DELETE /v1/onboarding-tokens/{tokenId}, scope onboarding:write). Revoking again is fine.

${CONNECTION_HELP}

Used or Expired: exit 1 with 409 and its tokenStatus.`;

export const TOKEN_RESEND_HELP = `Usage: onboarding token resend <tokenId> [options]

Issues a new token to the same person and e-mails it; the old one is revoked if it was Issued
(POST /v1/onboarding-tokens/{tokenId}/resend, scope onboarding:write). All or nothing.

Options:
  --idempotency-key <key>   makes a retry of this exact request safe (replays the first answer)
  --json                    print the response body as JSON

${CONNECTION_HELP}

Used or Revoked: exit 1 with 409 and its tokenStatus.`;

export const REPORT_HELP = `Usage: onboarding report <create|status|download|verify> [options]

  report create --user <id> [--wait] [--out <file.pdf>]
  report status <jobId>
  report download <jobId> [--out <file.pdf>]
  report verify <file.pdf> [--certificates <file.pem>]

Run "onboarding report <command> --help" for details.`;

export const REPORT_CREATE_HELP = `Usage: onboarding report create --user <id> [--wait] [--out <file.pdf>] [options]

Requests a PDF report about a user (POST /v1/document/api, scope reports:write) and prints the
job. At most 10 requests per 10 minutes per organization.

With --wait (implied by --out) it then polls the job as the API's guidance says: every 3-5 s
for the first 30 s, then every 10-15 s; a job not COMPLETE within 5 minutes counts as failed
(exit 3). State changes go to stderr: on a terminal with a live progress line, otherwise as
plain lines. With --out the PDF is downloaded from a fresh address and its size and SHA-256
are checked against the job before the file is written.

Options:
  --user <id>               the user's id, 1-16 characters (required)
  --wait                    wait until the report is COMPLETE (or FAILED)
  --out <file.pdf>          download the report to this file (implies --wait)
  --idempotency-key <key>   makes a retry of this exact request safe (replays the first answer)
  --json                    print the job (and the download) as JSON

${CONNECTION_HELP}

A job for this user is still open: exit 1 with 409 CONFLICT; the message names the open job,
which "onboarding report status <jobId>" shows.`;

export const REPORT_STATUS_HELP = `Usage: onboarding report status <jobId> [--json]

Shows a report job (GET /v1/document/api/{id}, scope reports:read): status, times and, when
COMPLETE, size and SHA-256, or when FAILED the error code. Exit 0 whatever the status.

Options:
  --json               print the job as JSON

${CONNECTION_HELP}`;

export const REPORT_DOWNLOAD_HELP = `Usage: onboarding report download <jobId> [--out <file.pdf>] [--json]

Downloads a COMPLETE report from a fresh address (GET /v1/document/api/{id}/url, scope
reports:read) and checks its size and SHA-256 against the job; an expired address is replaced
once. A job not COMPLETE: exit 1 (PENDING, IN_PROGRESS) or 3 (FAILED).

Options:
  --out <file.pdf>     where to save it; default the service's suggested file name in the
                       current directory
  --json               print the result as JSON

${CONNECTION_HELP}`;

export const REPORT_VERIFY_HELP = `Usage: onboarding report verify <file.pdf> [--certificates <file.pem>] [--json]

Checks a downloaded report's signature offline: the signed byte ranges cover the whole file
but the signature itself; the SHA-256 of those bytes is the one the signature carries; the
signature verifies with its certificate's public key; and that certificate is one of the
service's published report signing certificates. Exit 0 when valid, 5 when not (the message
says which check failed).

Options:
  --certificates <file.pem>  the published certificates as a PEM file (e.g. saved earlier from
                             GET /v1/report-signing-certificates): no token, no network at all.
                             Without it they are read from the API (scope reports:read).
  --json                     print the result as JSON

${CONNECTION_HELP}`;

export const USERS_HELP = `Usage: onboarding users <query|erase> [options]

  users query [--filter <name=value>]... [--keys <a,b,...>] [--limit <n>]
  users erase <id>

Run "onboarding users <command> --help" for details.`;

export const USERS_ERASE_HELP = `Usage: onboarding users erase <id>

Erases a user (GDPR): their record, every report job about them and its PDF, and every
onboarding token sent to their e-mail address (DELETE /v1/users/{id}, scope users:erase).
A report job still open ends FAILED with USER_ERASED. It cannot be undone.

${CONNECTION_HELP}

Unknown or already erased: exit 1 with 404. 503: part of it is done; run it again to finish.`;

export const USERS_QUERY_HELP = `Usage: onboarding users query [--filter <name=value>]... [--keys <a,b,...>] [--limit <n>] [options]

Queries the organization's user records (POST /v1/user-status, scope users:read), ordered by
created_at then id, and prints them as a table (or JSON). Pages are fetched as needed.

Options:
  --filter <name=value>      exact match, e.g. --filter country=DE --filter is_deleted=false
                             --filter registration_status=active (active, pending, inactive,
                             suspended or a stored value)
  --filter <name.op=value>   range, op one of gt, gte, lt, lte, eq, e.g. --filter age.gte=18
                             --filter created_at.lt=2024-01-01T00:00:00Z
                             (repeat --filter; all filters must match)
  --keys <a,b,...>           fields to show, in this order; default id, name, email,
                             registration_status, mobile_registration_status,
                             connection_status, created_at, updated_at
  --limit <n>                show at most n records (default 50)
  --offset <n>               skip the first n matches (default 0)
  --all                      show every match (ignores --limit)
  --json                     print {results, pagination} as JSON instead of a table

${CONNECTION_HELP}

Example: onboarding users query --filter registration_status=active --filter age.gte=18 \\
           --keys id,name,age,country --limit 20`;

export const WEBHOOK_HELP = `Usage: onboarding webhook <create|list|delete|test|deliveries> [options]

  webhook create --url <url> [--event <type>]... [--events <a,b,...>]
  webhook list
  webhook delete <id>
  webhook test <id>
  webhook deliveries <id> [--limit <n>] [--cursor <cursor>]

Run "onboarding webhook <command> --help" for details.`;

export const WEBHOOK_CREATE_HELP = `Usage: onboarding webhook create --url <url> [--event <type>]... [--events <a,b,...>] [options]

Registers a webhook endpoint (POST /v1/webhooks, scope webhooks:manage) and prints its
signing secret, the only time it is shown. Messages follow Standard Webhooks: verify them
with the secret (the client's verifyWebhook, or any standardwebhooks library).

Options:
  --url <url>        https URL of a public host (http://127.0.0.1:<port> in the local stack)
  --event <type>     report.completed, report.failed, onboarding_token.used or
                     onboarding_token.revoked; repeat or separate with commas; default all
  --events <a,b,...> the same (as the API's "events"), e.g.
                     --events report.completed,report.failed
  --json             print the response body as JSON

${CONNECTION_HELP}`;

export const WEBHOOK_LIST_HELP = `Usage: onboarding webhook list [--json]

Lists the organization's webhook endpoints (GET /v1/webhooks, scope webhooks:manage).

${CONNECTION_HELP}`;

export const WEBHOOK_DELETE_HELP = `Usage: onboarding webhook delete <id>

Deletes a webhook endpoint (DELETE /v1/webhooks/{id}, scope webhooks:manage).

${CONNECTION_HELP}`;

export const WEBHOOK_TEST_HELP = `Usage: onboarding webhook test <id> [--json]

Queues a webhook.test message for the endpoint (POST /v1/webhooks/{id}/test); follow it
with "onboarding webhook deliveries <id>".

${CONNECTION_HELP}`;

export const WEBHOOK_DELIVERIES_HELP = `Usage: onboarding webhook deliveries <id> [--limit <n>] [--cursor <cursor>] [--json]

The endpoint's delivery log, newest first (GET /v1/webhooks/{id}/deliveries): one line per
message with its status (pending, delivered, failed), attempts and last HTTP status.

${CONNECTION_HELP}`;

export const AUDIT_HELP = `Usage: onboarding audit list [options]

  audit list [--action <action>] [--target <id>] [--from <date>] [--to <date>] [--limit <n>] [--cursor <cursor>]

Run "onboarding audit list --help" for details.`;

export const AUDIT_LIST_HELP = `Usage: onboarding audit list [--action <action>] [--target <id>] [--from <date>] [--to <date>] [options]

The organization's audit trail, newest first (GET /v1/audit-events, scope audit:read): one line
per event with when, the action, its target and who did it (the token's subject and client).

Options:
  --action <action>   only this action, e.g. onboarding_token.revoked, report.download_url_issued,
                      user.erased
  --target <id>       only events about this token, job, webhook endpoint or user id
  --from <date>       only events at or after this ISO date or timestamp
  --to <date>         only events at or before this ISO date or timestamp
  --limit <n>         events per page, 1-100 (default 25)
  --cursor <cursor>   the next page, as printed after a page
  --json              the page as JSON

${CONNECTION_HELP}`;

export const TRIGGER_HELP = `Usage: onboarding trigger <type> [--json]

Sandbox only (a sandbox token: npm run -s token -- --org <org> --sandbox locally). Makes the
real sandbox objects behind a webhook event and sends its message to the sandbox's endpoints
(and its listener) signed and logged exactly like a live one (POST /v1/sandbox/events, scope
webhooks:manage and the objects' own scopes). Prints the type and the id of the object the
message's data describes.

  report.completed           a report job of sbx-clear that completes
  report.failed              a report job of sbx-fail that fails
  onboarding_token.used      a token issued (its e-mail kept by the sandbox) then redeemed
  onboarding_token.revoked   a token issued then revoked
  webhook.test               a test message to each of the sandbox's endpoints

Options:
  --json    print the response body as JSON

${CONNECTION_HELP}

A live token: exit 1 with 404 (the sandbox routes exist for sandbox tokens alone).`;

export const LISTEN_HELP = `Usage: onboarding listen --forward-to <url> [-- <command>...]
       onboarding listen --print-secret

Sandbox only. Forwards the sandbox's webhook messages to a URL on this machine, with no public
tunnel: the CLI reads them from the sandbox's listener (POST /v1/sandbox/webhook-listener, then
GET /v1/sandbox/webhook-messages, long polling; scope webhooks:manage) and POSTs each to the URL
with the body and the Standard Webhooks headers a delivery carries, signed with the listener's
secret. Messages from the moment it is ready on; one line per message with the receiver's HTTP
status. Runs until interrupted (Ctrl-C, exit 130).

The listener's signing secret is printed on stderr at the start, the same on every run until the
listener is deleted or the sandbox wiped: verify forwarded messages with it (the client's
verifyWebhook, any standardwebhooks library).

Options:
  --forward-to <url>   where to POST each message, e.g. http://localhost:4242/webhooks (any
                       http(s) URL: this machine calls it, the service never does)
  --print-secret       print the listener's secret alone and exit
  -- <command>...      start this command (your receiver) with WEBHOOK_SECRET set to the
                       secret; it is stopped with listen, and listen stops when it exits

${CONNECTION_HELP}

Example: onboarding listen --forward-to http://localhost:4242/webhooks -- node receiver.mjs`;
