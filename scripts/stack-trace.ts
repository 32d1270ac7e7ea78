import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { parseCommandLine, UsageError } from './command-line.ts';
import { decodeStackTrace } from './stack-trace/decode-stack-trace.ts';

const USAGE = `Usage: npm run -s stack-trace -- <index.js.map> < logged-error.txt

Reads a stack trace (or log lines holding one) on standard input and prints it with every
position in the Lambda bundle mapped back to the TypeScript source. The functions run without
--enable-source-maps (it costs every cold start), so logged traces point into the minified
bundle; its map is deployed beside it (index.js.map in the function's code, or in
cdk.out/asset.<hash>/ after \`npm run synth\` of the same commit).`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const mapFile = parseCommandLine('stack-trace', USAGE, () => {
  const [file, ...rest] = args;
  if (file === undefined || rest.length > 0) throw new UsageError('give the path of one index.js.map');
  return file;
});
if (mapFile === undefined) process.exit(2);

const sourceMap = new SourceMap(
  JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0],
);
process.stdout.write(decodeStackTrace(readFileSync(0, 'utf8'), sourceMap));
