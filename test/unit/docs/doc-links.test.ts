import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { findBrokenReferences, findStaleCodeReferences, githubSlug, githubSlugs } from '#scripts/check-doc-links.ts';

const README_MAX_LINES = 300;
const TRACKER_ISSUE = /\bissue\s+#?\d+/i;

async function documentationFiles(root: string): Promise<string[]> {
  const docs = (await readdir(path.join(root, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

describe('the README and docs/', () => {
  it('link only to files, headings and repository paths that exist', async () => {
    expect(await findBrokenReferences(repoRoot)).toEqual([]);
  });

  it('are matched by the code: every repository path and contract section a source file names exists', async () => {
    expect(await findStaleCodeReferences(repoRoot)).toEqual([]);
  });

  it(`keep the README a front door of at most ${README_MAX_LINES} lines`, async () => {
    const lines = (await readFile(path.join(repoRoot, 'README.md'), 'utf8')).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('cite no tracker issues', async () => {
    const citations: string[] = [];
    for (const file of await documentationFiles(repoRoot)) {
      const lines = (await readFile(path.join(repoRoot, file), 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (TRACKER_ISSUE.test(line)) citations.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(citations).toEqual([]);
  });
});

describe('findBrokenReferences', () => {
  let root: string;

  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'doc-links-'));
    await write('lib/routes.ts', '');
    await write('shared/domain/errors.ts', '');
    await write('bench/README.md', '# Benchmarks\n\n## Logs Insights queries\n');
    await write(
      'docs/guide.md',
      [
        '# Guide',
        '',
        '## Decisions where the contract is silent',
        '## Client (`client/`)',
        '## 10. Reports every reader can trust',
        '## Notes',
        '## Notes',
        '',
        '```bash',
        '## not a heading: inside a fence',
        'see [fenced](missing-in-fence.md) and `lib/fenced-only.ts`',
        '```',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('accepts links, anchors and paths that exist, and skips what is not a repository path', async () => {
    await write(
      'README.md',
      [
        '[guide](docs/guide.md), [decisions](docs/guide.md#decisions-where-the-contract-is-silent),',
        '[client](docs/guide.md#client-client), [§10](docs/guide.md#10-reports-every-reader-can-trust),',
        '[second notes](docs/guide.md#notes-1), [here](#top), [bench](bench/README.md#logs-insights-queries),',
        '[site](https://example.org/missing.md), [mail](mailto:a@example.org).',
        '',
        '# Top',
        '',
        '`lib/routes.ts`, `shared/domain/`, `lib/`, `functions/*.ts`, `shared/adapters/{dynamodb,s3}`,',
        '`functions/<verb-noun>.ts`, `node_modules/x/index.ts`, `.local/dev-keys.json`, `cdk.out/asset.1/index.js.map`,',
        '`bench/results/latest.json`, `application/json`, `@aws-sdk/client-s3`, `GET /v1/document/api/{id}`,',
        '`https://example.org/a/b.ts`, `seed/notes.txt`.',
        '',
        '```bash',
        'cat lib/not-there.ts   # commands may name files a run creates',
        '```',
      ].join('\n'),
    );
    expect(await findBrokenReferences(root)).toEqual([]);
  });

  it('reports missing files, headings and paths with their line', async () => {
    await write(
      'README.md',
      [
        'See [gone](docs/gone.md) and [no heading](docs/guide.md#no-such-heading).',
        'Paths: `lib/missing.ts`, `shared/nowhere/`, `lib/routes.ts/`, `docs/absent.md`.',
        'Outside: [up](../elsewhere/CONTRACT.md), `../elsewhere/NOTES.md`.',
        'Here: [self](#missing-anchor).',
      ].join('\n'),
    );
    expect(await findBrokenReferences(root)).toEqual([
      'README.md:1: link to docs/gone.md: docs/gone.md does not exist',
      'README.md:1: link to docs/guide.md#no-such-heading: no heading with the anchor #no-such-heading in docs/guide.md',
      'README.md:2: path `lib/missing.ts` does not exist',
      'README.md:2: path `shared/nowhere/` does not exist',
      'README.md:2: path `lib/routes.ts/` is a file, not a folder',
      'README.md:2: path `docs/absent.md` does not exist',
      'README.md:3: link to ../elsewhere/CONTRACT.md points outside the repository',
      'README.md:3: path `../elsewhere/NOTES.md` is outside the repository',
      'README.md:4: link to #missing-anchor: no heading with the anchor #missing-anchor in README.md',
    ]);
  });

  it('resolves links in docs/ relative to the page', async () => {
    await write('README.md', '# Readme\n');
    await write('docs/other.md', '[guide](guide.md#notes) [readme](../README.md#readme) [wrong](docs/guide.md)\n');
    expect(await findBrokenReferences(root)).toEqual([
      'docs/other.md:1: link to docs/guide.md: docs/docs/guide.md does not exist',
    ]);
    await rm(path.join(root, 'docs/other.md'));
  });
});

describe('githubSlug', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('Decisions where the contract is silent')).toBe('decisions-where-the-contract-is-silent');
    expect(githubSlug('Client (`client/`)')).toBe('client-client');
    expect(githubSlug('9. Webhooks (the Standard Webhooks specification)')).toBe(
      '9-webhooks-the-standard-webhooks-specification',
    );
    expect(githubSlug('Users: import and migration')).toBe('users-import-and-migration');
    expect(githubSlug('Über [links](x.md) — too')).toBe('über-links--too');
  });

  it('numbers repeated headings', () => {
    expect([...githubSlugs(['Notes', 'Notes', 'Notes'])]).toEqual(['notes', 'notes-1', 'notes-2']);
  });
});

describe('findStaleCodeReferences', () => {
  let root: string;

  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'code-paths-'));
    await write('docs/contract.md', '# Contract\n\n## 1. Everywhere\n\n## 9. Webhooks\n');
    await write('shared/config/api-routes.ts', '');
    await write(
      'functions/handler.ts',
      [
        "import { routes } from '#shared/config/api-routes.ts';",
        "import { local } from './sibling.ts';",
        '// Routes are listed in shared/config/api-routes.ts (docs/contract.md §9).',
        "throw new Error('add the route to lib/routes.ts');",
        '// Fairness: docs/contract.md §15.',
        "const address = 'https://example.com/docs/missing.md';",
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reports a missing path in a string and a missing contract section, and nothing else', async () => {
    expect(await findStaleCodeReferences(root)).toEqual([
      'functions/handler.ts:4: path `lib/routes.ts` does not exist',
      'functions/handler.ts:5: docs/contract.md has no section §15',
    ]);
  });
});
