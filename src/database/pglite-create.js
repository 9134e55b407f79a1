// Creates a new embedded data directory (PGlite's initdb), run as a process of its own by
// pglite-thread.ts. Creating a database allocates a few hundred MB that the C library keeps
// after they are freed: in a thread of the server they stayed in its resident memory for good
// (glibc keeps a finished thread's heap arena for the next thread); a process gives them back
// when it ends. Plain JavaScript, run as it is, in tests too.
// Usage: node pglite-create.js <dataDir>; exit code 0 once created, 1 with the reason on stderr.
const { PGlite } = require('@electric-sql/pglite');

async function main() {
  const db = await PGlite.create(process.argv[2]);
  await db.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
