import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Dead links and stale paths in the documentation: README.md and every docs/*.md.
 *
 * - Every relative Markdown link (`[text](target)`, `![alt](target)`, `[id]: target`, HTML
 *   `href`/`src`) names a file or folder that exists inside the repository; an anchor
 *   (`#heading`, on the same page or another Markdown file) names a heading there, slugged as
 *   GitHub slugs them.
 * - Every path in backticks that looks like a repository path exists: one with a `/` that ends in
 *   a known extension (`.ts`, `.md`, `.json`, ...) or whose first folder is a top-level folder of
 *   the repository. URLs, globs (`*`), placeholders (`{...}`, `<...>`) and generated or local-only
 *   folders (`node_modules/`, `.local/`, `cdk.out/`, `bench/results/`, `web/dist/`) are not
 *   paths to check.
 *
 * Fenced code blocks are skipped: commands there name files a run creates.
 * Run it alone with `npx tsx scripts/check-doc-links.ts` (exit 1 and one line per problem).
 */

const KNOWN_EXTENSIONS = new Set([
  '.ts',
  '.tsx',
  '.mts',
  '.cts',
  '.mjs',
  '.cjs',
  '.json',
  '.md',
  '.yaml',
  '.yml',
  '.css',
  '.html',
]);

/** Folders that exist only after a build, a run or an install, or only on one machine. */
const UNCHECKED_PREFIXES = ['node_modules/', '.local/', 'cdk.out/', 'bench/results/', 'web/dist/', 'coverage/'];

/** Characters a path in backticks may consist of; anything else (spaces, `*`, `{`, `<`, `:`) is not a plain path. */
const PLAIN_PATH = /^[\w@.\-/]+$/;
const URL_SCHEME = /^[a-z][a-z\d+.-]*:/i;

export async function findBrokenReferences(repoRoot: string): Promise<string[]> {
  const root = path.resolve(repoRoot);
  const documents = ['README.md', ...(await markdownFilesIn(root, 'docs')).map((name) => `docs/${name}`)];
  const topLevelFolders = await topLevelFoldersOf(root);
  const anchorsOf = anchorCache();
  const problems: string[] = [];

  for (const document of documents) {
    const text = await readFile(path.join(root, document), 'utf8');
    const { prose } = splitFencedCode(text);
    const { masked, codeSpans } = maskCodeSpans(prose);
    const found: Array<{ offset: number; message: string }> = [];
    const report = (offset: number, message: string) => void found.push({ offset, message });

    for (const { target, offset } of linkTargets(masked)) {
      const problem = await checkLink(root, document, target, anchorsOf);
      if (problem) report(offset, problem);
    }
    for (const { content, offset } of codeSpans) {
      const candidate = repositoryPathIn(content, topLevelFolders);
      if (candidate === undefined) continue;
      const problem = await checkRepositoryPath(root, candidate);
      if (problem) report(offset, problem);
    }
    for (const { offset, message } of found.sort((a, b) => a.offset - b.offset)) {
      problems.push(`${document}:${lineAt(prose, offset)}: ${message}`);
    }
  }
  return problems;
}

async function markdownFilesIn(root: string, folder: string): Promise<string[]> {
  try {
    const entries = await readdir(path.join(root, folder), { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

async function topLevelFoldersOf(root: string): Promise<Set<string>> {
  const entries = await readdir(root, { withFileTypes: true });
  return new Set(entries.filter((e) => e.isDirectory() && e.name !== '.git').map((e) => e.name));
}

async function exists(file: string): Promise<'file' | 'folder' | undefined> {
  try {
    return (await stat(file)).isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

// ---------------------------------------------------------------------------------------------
// Markdown structure

/**
 * The text with every fenced code block blanked out (line breaks kept, so offsets still give
 * line numbers), and the headings outside them.
 */
export function splitFencedCode(text: string): { prose: string; headings: string[] } {
  const lines = text.split('\n');
  const headings: string[] = [];
  let fence: { char: string; length: number } | undefined;
  const prose = lines.map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opening && opening[1]![0] === fence.char && opening[1]!.length >= fence.length && line.trim() === opening[1])
        fence = undefined;
      return '';
    }
    if (opening && !(opening[1]![0] === '`' && line.slice(opening[0].length).includes('`'))) {
      fence = { char: opening[1]![0]!, length: opening[1]!.length };
      return '';
    }
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading) headings.push(heading[1]!);
    return line;
  });
  return { prose: prose.join('\n'), headings };
}

interface CodeSpan {
  content: string;
  offset: number;
}

/** Inline code spans (CommonMark: a run of n backticks up to the next run of exactly n), and the text with them blanked. */
export function maskCodeSpans(text: string): { masked: string; codeSpans: CodeSpan[] } {
  const codeSpans: CodeSpan[] = [];
  let masked = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\\' && text[index + 1] === '`') {
      masked += '  ';
      index += 2;
      continue;
    }
    if (char !== '`') {
      masked += char;
      index++;
      continue;
    }
    let runEnd = index;
    while (text[runEnd] === '`') runEnd++;
    const run = runEnd - index;
    const closing = findBacktickRun(text, runEnd, run);
    if (closing === undefined) {
      masked += text.slice(index, runEnd);
      index = runEnd;
      continue;
    }
    let content = text.slice(runEnd, closing).replace(/\n/g, ' ');
    if (content.length > 1 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '')
      content = content.slice(1, -1);
    codeSpans.push({ content, offset: index });
    masked += text.slice(index, closing + run).replace(/[^\n]/g, ' ');
    index = closing + run;
  }
  return { masked, codeSpans };
}

function findBacktickRun(text: string, from: number, length: number): number | undefined {
  let index = from;
  while (index < text.length) {
    const start = text.indexOf('`', index);
    if (start === -1) return undefined;
    let end = start;
    while (text[end] === '`') end++;
    if (end - start === length) return start;
    index = end;
  }
  return undefined;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index++) if (text.charCodeAt(index) === 10) line++;
  return line;
}

/** Link destinations in prose whose code spans are already blanked. */
export function linkTargets(masked: string): Array<{ target: string; offset: number }> {
  const targets: Array<{ target: string; offset: number }> = [];
  const inline = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  const definitions = /^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm;
  const html = /\b(?:href|src)\s*=\s*"([^"]*)"/g;
  for (const pattern of [inline, definitions, html]) {
    for (const match of masked.matchAll(pattern)) {
      const raw = match[1]!;
      targets.push({ target: raw.startsWith('<') ? raw.slice(1, -1) : raw, offset: match.index });
    }
  }
  return targets.sort((a, b) => a.offset - b.offset);
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, ... */
export function githubSlugs(headings: readonly string[]): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const heading of headings) {
    const base = githubSlug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorCache(): (file: string) => Promise<Set<string>> {
  const cache = new Map<string, Promise<Set<string>>>();
  return (file) => {
    let anchors = cache.get(file);
    if (!anchors) {
      anchors = readFile(file, 'utf8').then((text) => {
        const slugs = githubSlugs(splitFencedCode(text).headings);
        for (const match of text.matchAll(/<a\s+(?:id|name)\s*=\s*"([^"]+)"/g)) slugs.add(match[1]!);
        return slugs;
      });
      cache.set(file, anchors);
    }
    return anchors;
  };
}

// ---------------------------------------------------------------------------------------------
// Checks

async function checkLink(
  root: string,
  document: string,
  target: string,
  anchorsOf: (file: string) => Promise<Set<string>>,
): Promise<string | undefined> {
  if (URL_SCHEME.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const linkPath = decode(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decode(target.slice(hash + 1));
  const file =
    linkPath === ''
      ? path.join(root, document)
      : linkPath.startsWith('/')
        ? path.join(root, linkPath)
        : path.resolve(path.dirname(path.join(root, document)), linkPath);
  if (!isInside(root, file)) return `link to ${target} points outside the repository`;
  const kind = await exists(file);
  if (kind === undefined) return `link to ${target}: ${path.relative(root, file)} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (kind === 'folder' || !file.endsWith('.md')) {
    return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `link to ${target}: only Markdown files have heading anchors`;
  }
  if (!(await anchorsOf(file)).has(anchor)) {
    return `link to ${target}: no heading with the anchor #${anchor} in ${path.relative(root, file)}`;
  }
  return undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The repository path a code span names, or undefined when it is not one to check. */
export function repositoryPathIn(content: string, topLevelFolders: ReadonlySet<string>): string | undefined {
  const candidate = content.trim().replace(/^\.\//, '');
  if (!candidate.includes('/') || !PLAIN_PATH.test(candidate) || URL_SCHEME.test(candidate)) return undefined;
  if (candidate.startsWith('/') || candidate.startsWith('//')) return undefined;
  if (UNCHECKED_PREFIXES.some((prefix) => `${candidate}/`.startsWith(prefix))) return undefined;
  const firstFolder = candidate.split('/')[0]!;
  const extension = path.extname(candidate.replace(/\/$/, ''));
  if (firstFolder === '..' && KNOWN_EXTENSIONS.has(extension)) return candidate;
  if (topLevelFolders.has(firstFolder) || KNOWN_EXTENSIONS.has(extension)) return candidate;
  return undefined;
}

async function checkRepositoryPath(root: string, candidate: string): Promise<string | undefined> {
  const file = path.resolve(root, candidate);
  if (!isInside(root, file)) return `path \`${candidate}\` is outside the repository`;
  const kind = await exists(file);
  if (kind === undefined) return `path \`${candidate}\` does not exist`;
  if (candidate.endsWith('/') && kind !== 'folder') return `path \`${candidate}\` is a file, not a folder`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Paths named in code

/** The folders whose sources may name repository paths in strings and comments. */
const CODE_FOLDERS = [
  'shared',
  'functions',
  'lib',
  'local',
  'cli',
  'client',
  'scripts',
  'bench',
  'web/src',
  'bin',
  'test',
  '.ci',
];
/** Test fixtures that name missing paths on purpose (the checker's own tests). */
const CODE_FILES_NOT_CHECKED = new Set(['test/unit/docs/doc-links.test.ts']);
const CODE_EXTENSIONS = new Set(['.ts', '.tsx', '.mjs', '.cjs', '.js', '']);
/** A path with at least one folder and a known extension, not part of a longer word, URL or `#import`. */
const PATH_IN_CODE =
  /(?<![\w./#:@-])((?:[\w@-][\w@.-]*\/)+[\w@-][\w@.-]*\.(?:ts|tsx|md|json|ya?ml|cjs|mjs|css|html))(?![\w/])/g;
/** `contract.md §n` and `docs/contract.md §n`: a section of the contract, which must exist. */
const CONTRACT_SECTION = /contract\.md,? §\s?(\d+)/g;

/**
 * Stale paths in the code: every repository path a source file names (in an error message, a
 * comment, a script) exists, and every `contract.md §n` names a section of docs/contract.md.
 */
export async function findStaleCodeReferences(repoRoot: string): Promise<string[]> {
  const root = path.resolve(repoRoot);
  // A path into a folder the repository no longer has is stale too.
  const topLevelFolders = new Set([
    ...(await topLevelFoldersOf(root)),
    ...CODE_FOLDERS.map((folder) => folder.split('/')[0]!),
    'docs',
  ]);
  const sections = contractSections(await readFile(path.join(root, 'docs', 'contract.md'), 'utf8'));
  const problems: string[] = [];
  for (const file of await codeFilesIn(root, CODE_FOLDERS)) {
    if (CODE_FILES_NOT_CHECKED.has(file)) continue;
    const lines = (await readFile(path.join(root, file), 'utf8')).split('\n');
    for (const [index, line] of lines.entries()) {
      for (const match of line.matchAll(PATH_IN_CODE)) {
        const candidate = repositoryPathIn(match[1]!, topLevelFolders);
        if (candidate === undefined || !topLevelFolders.has(candidate.split('/')[0]!)) continue;
        const problem = await checkRepositoryPath(root, candidate);
        if (problem) problems.push(`${file}:${index + 1}: ${problem}`);
      }
      for (const match of line.matchAll(CONTRACT_SECTION)) {
        if (!sections.has(Number(match[1]))) {
          problems.push(`${file}:${index + 1}: docs/contract.md has no section §${match[1]}`);
        }
      }
    }
  }
  return problems;
}

/** The numbers of the contract's `## n. Title` sections. */
export function contractSections(markdown: string): Set<number> {
  return new Set([...markdown.matchAll(/^## (\d+)\. /gm)].map((match) => Number(match[1])));
}

async function codeFilesIn(root: string, folders: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(root, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const relative = `${folder}/${entry.name}`;
      if (UNCHECKED_PREFIXES.some((prefix) => `${relative}/`.startsWith(prefix))) continue;
      if (entry.isDirectory()) await walk(relative);
      else if (CODE_EXTENSIONS.has(path.extname(entry.name))) files.push(relative);
    }
  };
  for (const folder of folders) await walk(folder);
  return files.sort();
}

// ---------------------------------------------------------------------------------------------

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repoRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const problems = [...(await findBrokenReferences(repoRoot)), ...(await findStaleCodeReferences(repoRoot))];
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.stdout.write(problems.length === 0 ? 'documentation links and paths: all found\n' : '');
  process.exitCode = problems.length === 0 ? 0 : 1;
}
