// @nestjs/* 12 is ESM-only; Jest's CommonJS runtime loads it once swc transforms it (transformIgnorePatterns below).
const esmOnly = [
  '@nestjs', 'graphql-ws', '@as-integrations', 'load-esm', 'file-type', 'uid', 'strtok3',
  'token-types', '@tokenizer', '@borewit', 'uint8array-extras', 'eventsource', 'eventsource-parser',
];
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  // `src/` also takes the web app's unit specs (web/src/**/*.spec.ts)
  testRegex: ['src/.*\\.spec\\.ts$', 'test/.*\\.e2e-spec\\.ts$'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  setupFiles: ['<rootDir>/test/support/quiet-logs.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/\\.bench/', '/dist/'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // a hook that starts a server or a database waits for a busy machine (CI shares it) before it fails
  testTimeout: 120000,
  maxWorkers: 2,
  workerIdleMemoryLimit: '1GB',
};
