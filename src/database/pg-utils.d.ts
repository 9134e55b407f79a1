/** node-postgres's parameter encoder (untyped in @types/pg); the embedded database uses it too. */
declare module 'pg/lib/utils' {
  export function prepareValue(value: unknown): string | Buffer | null;
}
