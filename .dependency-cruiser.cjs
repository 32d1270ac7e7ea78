// The house's import rules, checked by `npm run lint` (dependency-cruiser over the TypeScript sources):
// the domain knows no wire format, transport, AWS or configuration, and no module reaches itself again
// through its imports. Type-only imports count: a circle of types is still a circle to read.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not import itself through others: move what both need into a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-stays-pure',
      severity: 'error',
      comment:
        'shared/domain holds the use cases and their rules: it imports only itself, Node built-ins and small pure libraries. ' +
        'Response bodies are made by shared/presenters at the edge; adapters and configuration are wired in functions/.',
      from: { path: '^shared/domain/' },
      to: {
        path: '^(shared/(schemas|http|presenters|adapters|config|observability|queue)|functions|lib|local|cli|client|web|scripts|bench|test)/',
      },
    },
    {
      name: 'domain-no-aws-or-transport-packages',
      severity: 'error',
      comment: 'The domain never talks to AWS, PostgreSQL or HTTP middleware itself: that is what ports are for.',
      from: { path: '^shared/domain/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev'],
        path: '(^|/)node_modules/(@aws-sdk|@smithy|@middy|@aws-lambda-powertools|pg|aws-cdk-lib)/',
      },
    },
    // Which folders a layer may not import, one [rule, importer, imported, why] row each.
    ...[
      [
        'support-is-the-ground-floor',
        '^shared/support/',
        '^(shared/(?!support/)|functions|lib|local|cli|client|web|scripts|bench|test)',
        'shared/support holds generic runtime helpers (retry, deadlines, bounded maps, database time) that the ' +
          'domain and the adapters both use: it imports only itself and Node built-ins.',
      ],
      [
        'shared-stands-below-its-users',
        '^shared/',
        '^(functions|lib|local|cli|client|web|scripts|bench|test|bin)/',
        'shared/ is what the entry files, the CDK app, the local stack and the tools stand on: it imports none of ' +
          'them (data both sides need, like the e-mail template, lives in shared/).',
      ],
      [
        'adapters-are-built-in-wiring',
        '^shared/(?!adapters/|wiring/)',
        '^shared/adapters/',
        'Adapters are constructed in one place: shared/wiring/ (and the entry files in functions/). The HTTP layer, ' +
          'the queue handlers, configuration, presenters and observability receive ports; they never import one.',
      ],
    ].map(([name, importer, imported, why]) => ({
      name,
      severity: 'error',
      comment: why,
      from: { path: importer },
      to: { path: imported },
    })),
    {
      name: 'only-the-worker-bundles-the-renderer',
      severity: 'error',
      comment:
        'A function bundles every module it reaches, whether it calls it or not (esbuild keeps imports). The report ' +
        'renderer (pdf-lib and fontkit, about 500 KB) is reached by the worker alone: wire what ' +
        'only some functions of an area run in a module of its own (docs/architecture.md).',
      from: { path: '^functions/(?!process-report-jobs\\.ts$)' },
      to: { path: '^shared/adapters/pdf/', reachable: true },
    },
    {
      name: 'schemas-are-shapes-only',
      severity: 'error',
      comment:
        'shared/schemas describes the wire: it may read the domain’s constants, never the HTTP layer or adapters.',
      from: { path: '^shared/schemas/' },
      to: { path: '^(shared/(http|presenters|adapters|config)|functions)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|cdk\\.out|\\.local|coverage|web/dist|bench/results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
