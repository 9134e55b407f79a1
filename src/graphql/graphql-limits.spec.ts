import { buildSchema, parse, validate } from 'graphql';
import { depthLimit } from './graphql-limits';

const schema = buildSchema(`
  type Node { id: ID, child: Node }
  type Query { node: Node }
`);

const depthErrors = (query: string, max: number) => validate(schema, parse(query), [depthLimit(max)]).map((e) => e.message);

describe('depthLimit', () => {
  it('accepts an operation as deep as the limit and refuses one level more', () => {
    expect(depthErrors('{ node { child { id } } }', 3)).toEqual([]);
    expect(depthErrors('{ node { child { child { id } } } }', 3)).toEqual(['The query is nested 4 levels deep; the limit is 3.']);
  });

  it('follows fragments and inline fragments, and survives a fragment cycle', () => {
    const viaFragments = `
      { node { ...A } }
      fragment A on Node { child { ... on Node { child { id } } } }`;
    expect(depthErrors(viaFragments, 3)).toEqual(['The query is nested 4 levels deep; the limit is 3.']);
    expect(depthErrors(viaFragments, 4)).toEqual([]);
    // a cycle is refused by GraphQL's own rules; the depth rule must not loop on it
    const cyclic = '{ node { ...A } } fragment A on Node { child { ...A } }';
    expect(() => depthErrors(cyclic, 5)).not.toThrow();
  });
});
