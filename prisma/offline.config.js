// Prisma CLI config for schema diffs: `engine: 'js'` makes the CLI use its bundled WASM schema
// engine instead of downloading a native one. Schema-to-schema diffs never open the connection.
const { defineConfig } = require('prisma/config');
const { PrismaPg } = require('@prisma/adapter-pg');

module.exports = defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'schema.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
});
