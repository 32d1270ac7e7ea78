import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { OnboardingEmail, OnboardingMailer } from '../../domain/onboarding/ports.ts';
import {
  addressAt,
  regionalEndpoint,
  serviceAccessFromEnvironment,
  type AwsAddress,
  type AwsServiceAccess,
} from '../aws-http/aws-environment.ts';
import { AwsRequestRefusedError, SigV4HttpClient, type AwsResponse } from '../aws-http/sigv4-http-client.ts';

const SEND_EMAIL_PATH = '/v2/email/outbound-emails';
/** SES answers a connection within milliseconds; one that takes longer is better tried afresh. */
const CONNECTION_TIMEOUT_MS = 1_000;
/** One attempt: one that stalls, connected or not, is given up in time for another within the budget. */
const ATTEMPT_TIMEOUT_MS = 1_200;
/** All attempts together: the API request waits for the e-mail, and the function times out after 10 s. */
const SEND_TIMEOUT_MS = 3_000;
/** The pauses before the second and the third attempt. */
const RETRY_DELAYS_MS = [50, 200];
/** SES throttles with these, some of them as a 400; another attempt may well succeed. */
const TRANSIENT_SES_ERRORS = new Set(['TooManyRequestsException', 'LimitExceededException', 'ThrottlingException']);
/** SES answers with a short JSON document: the message id, or the error's type and message. */
const MAX_RESPONSE_BYTES = 4_096;

export interface SesOnboardingMailerOptions {
  senderAddress: string;
  templateName: string;
  /** Pauses between attempts; one attempt more than there are pauses. */
  retryDelaysMs?: readonly number[];
}

/**
 * Sends the onboarding token with the stored SES template (`onboarding-token`): one SES v2
 * SendEmail, signed (SigV4) and sent with the SDK's own signer and HTTP handler instead of the
 * SESv2 client, whose size in the token function's bundle and cold start is not worth this one
 * call (README, "Performance"). Throttling, 5XX and network failures are tried again within 3 s,
 * since the API request waits; whatever fails in the end is a MailDeliveryError.
 */
export class SesOnboardingMailer implements OnboardingMailer {
  private readonly ses: SigV4HttpClient;
  private readonly sendEmailAddress: AwsAddress;

  constructor(
    ses: AwsServiceAccess,
    private readonly options: SesOnboardingMailerOptions,
  ) {
    this.ses = new SigV4HttpClient({
      signingName: 'ses',
      region: ses.region,
      credentials: ses.credentials,
      dependency: 'mail',
      connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      timeBudgetMs: SEND_TIMEOUT_MS,
      retryDelaysMs: options.retryDelaysMs ?? RETRY_DELAYS_MS,
      transientErrorCodes: TRANSIENT_SES_ERRORS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      refusal: (response) =>
        new AwsRequestRefusedError(
          'SES SendEmail',
          response.statusCode,
          sesErrorType(response),
          response.headers['x-amzn-requestid'],
        ),
    });
    this.sendEmailAddress = addressAt(ses.endpoint ?? regionalEndpoint('email', ses.region), SEND_EMAIL_PATH);
  }

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
    try {
      await this.ses.send({
        method: 'POST',
        address: this.sendEmailAddress,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(this.sendEmailInput(email)),
      });
    } catch (error) {
      // SES's refusals and outages are described without its text; anything else (a bug, no
      // credentials) is passed on as it is, stack and all.
      if (error instanceof AwsRequestRefusedError || error instanceof DependencyUnavailableError)
        throw new MailDeliveryError(error);
      throw error;
    }
  }

  private sendEmailInput(email: OnboardingEmail) {
    return {
      FromEmailAddress: this.options.senderAddress,
      Destination: { ToAddresses: [email.to] },
      Content: {
        Template: {
          TemplateName: this.options.templateName,
          TemplateData: JSON.stringify({
            firstName: email.firstName,
            lastName: email.lastName,
            token: email.token,
            expiresOn: email.expiresAt.toISOString().slice(0, 10),
            organizationName: email.organizationName,
          }),
        },
      },
    };
  }
}

/** The token function's mailer: SES in the function's region, with its own credentials from its environment. */
export function onboardingMailerFromEnvironment(options: SesOnboardingMailerOptions): SesOnboardingMailer {
  return new SesOnboardingMailer(serviceAccessFromEnvironment('SESv2'), options);
}

/**
 * A failed send, described without SES's message: SES echoes recipient addresses in its error
 * texts, and this error ends up in the logs. Error type, status and request id are enough to trace it.
 */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
  constructor(failure: unknown) {
    // Transient failures that outlasted the attempts arrive wrapped, the last one as the cause.
    const last = failure instanceof DependencyUnavailableError ? failure.cause : failure;
    const refusal = last instanceof AwsRequestRefusedError ? last : undefined;
    super(
      `SES SendEmail failed: ${failureType(last)}` +
        ` (status ${refusal?.statusCode ?? 'none'}, request ${refusal?.requestId ?? 'none'})`,
    );
  }
}

/** SES's error type, or the network's error code (`ECONNRESET`) or name (`TimeoutError`). */
function failureType(error: unknown): string {
  if (error instanceof AwsRequestRefusedError) return error.code ?? 'unknown error';
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'unknown error';
}

/**
 * SES v2 speaks REST-JSON: the error type is in the `x-amzn-errortype` header (`Type:<more>`) or
 * the body's `code` or `__type` (`<namespace>#Type`). Only an identifier is taken from there;
 * everything else in the body is SES's message.
 */
function sesErrorType({ headers, body }: AwsResponse): string | undefined {
  const raw = headers['x-amzn-errortype'] ?? errorTypeInBody(body);
  const type = raw?.split(':')[0]?.split('#').pop();
  return type && /^\w{1,64}$/.test(type) ? type : undefined;
}

function errorTypeInBody(body: string): string | undefined {
  try {
    const { code, __type } = JSON.parse(body) as { code?: unknown; __type?: unknown };
    const type = code ?? __type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined; // not JSON, or cut short
  }
}
