import { PreparedStatements } from './pglite-statements';
import { inlineParameters, sqlLiteral } from './sql-client';

/** A session that records what it is sent; PREPARE fails for texts containing `untyped`. */
function fakeSession() {
  const sent: string[] = [];
  const exec = async (sql: string) => {
    sent.push(sql);
    if (sql.startsWith('PREPARE') && sql.includes('untyped')) throw new Error('could not determine data type of parameter $1');
    return [];
  };
  return { sent, statements: new PreparedStatements({ exec }, inlineParameters, sqlLiteral) };
}

describe('PreparedStatements', () => {
  it('prepares a text once, then executes it by name with literal arguments', async () => {
    const { sent, statements } = fakeSession();
    const text = 'UPDATE runs SET step = $2 WHERE id = $1';
    expect(await statements.sqlFor(text, ["r'1", 3], true)).toBe("EXECUTE helix_s1('r''1', 3)");
    expect(await statements.sqlFor(text, ['r2', -1], true)).toBe("EXECUTE helix_s1('r2', (-1))");
    expect(sent).toEqual([`PREPARE helix_s1 AS ${text}`]);
  });

  it('inlines statements without parameters, those it cannot prepare, and new ones inside a transaction', async () => {
    const { sent, statements } = fakeSession();
    expect(await statements.sqlFor('SELECT 1', [], true)).toBe('SELECT 1');
    expect(await statements.sqlFor('SELECT $1 AS untyped', ['a'], true)).toBe("SELECT 'a' AS untyped");
    expect(await statements.sqlFor('SELECT $1 AS untyped', ['b'], true)).toBe("SELECT 'b' AS untyped"); // not retried
    expect(await statements.sqlFor('SELECT $1::int', [1], false)).toBe('SELECT 1::int');
    expect(sent).toEqual(['PREPARE helix_s1 AS SELECT $1 AS untyped']);
  });

  it('keeps at most 256 texts prepared, deallocating the least recently used', async () => {
    const { sent, statements } = fakeSession();
    for (let i = 0; i < 256; i++) await statements.sqlFor(`SELECT $1::int + ${i}`, [i], true);
    await statements.sqlFor('SELECT $1::int + 0', [0], true); // used again: now the most recent
    await statements.sqlFor('SELECT $1::int + 256', [256], true);
    expect(sent.filter((s) => s.startsWith('DEALLOCATE'))).toEqual(['DEALLOCATE helix_s2']);
    expect(await statements.sqlFor('SELECT $1::int + 0', [7], true)).toBe('EXECUTE helix_s1(7)');
  });
});
