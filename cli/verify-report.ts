import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { pemBlocks, verifyReportSignature, type TrustedCertificate } from '#client/verify-report.ts';
import { type CommandContext, EXIT, type Values } from './command.ts';
import { UsageError } from './user-filters.ts';

export const REPORT_VERIFY_OPTIONS: ParseArgsConfig['options'] = {
  certificates: { type: 'string' },
  json: { type: 'boolean' },
};

/** With `--certificates` the check is fully offline: no token, no API call. */
export const verifyReportNeedsToken = (values: Values): boolean => values.certificates === undefined;

/**
 * `onboarding report verify <file> [--certificates <pem>]`: checks a downloaded report's signature
 * against the published certificates (GET /v1/report-signing-certificates, or a PEM file).
 */
export async function verifyReport({ values, positionals, client, io, out, err }: CommandContext): Promise<number> {
  const file = path.resolve(io.cwd, positionals[0]!);
  const pdf = await readInput(file, 'report');
  const certificatesFile = values.certificates as string | undefined;
  let trusted: TrustedCertificate[];
  let source: string;
  if (certificatesFile === undefined) {
    trusted = (await client.listReportSigningCertificates({ signal: io.signal })).certificates;
    source = 'GET /v1/report-signing-certificates';
  } else {
    const pem = new TextDecoder().decode(await readInput(path.resolve(io.cwd, certificatesFile), 'certificates'));
    if (pemBlocks(pem).length === 0)
      throw new UsageError(`--certificates ${certificatesFile} holds no PEM certificate`);
    trusted = [{ pem }];
    source = certificatesFile;
  }

  const result = await verifyReportSignature(pdf, trusted);
  const name = path.relative(io.cwd, file) || file;
  if (values.json) out(JSON.stringify({ file: name, certificates: source, ...result }, null, 2));
  if (result.valid) {
    if (!values.json)
      out(
        [
          `${name}: signature valid`,
          `  signed by      ${result.signer.commonName}`,
          `  certificate    SHA-256 ${result.signer.sha256Fingerprint} (published: ${source})`,
          `  valid          ${result.signer.notBefore} to ${result.signer.notAfter}`,
          ...(result.signingTime ? [`  signing time   ${result.signingTime} (as the signer states it)`] : []),
          `  covers         the whole file but the signature (ByteRange ${result.byteRange.join(' ')})`,
        ].join('\n'),
      );
    return EXIT.ok;
  }
  err(`onboarding: ${name}: NOT VALID (${result.failure}): ${result.message}`);
  return EXIT.reportInvalid;
}

async function readInput(file: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    throw new UsageError(
      `cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}
