import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDay(value: unknown): string {
  const match = typeof value === 'string' ? DAY.exec(value) : null;
  const date = match ? new Date(`${value as string}T00:00:00.000Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new GraphQLError(`Date must be a calendar day as YYYY-MM-DD (got ${JSON.stringify(value)})`, {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return value as string;
}

/** A UTC calendar day, `YYYY-MM-DD` on the wire and in resolvers (budgets and usage are per UTC day). */
export const DateScalar = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'A UTC calendar day as YYYY-MM-DD.',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : parseDay(value)),
  parseValue: parseDay,
  parseLiteral: (ast) => parseDay(ast.kind === Kind.STRING ? ast.value : undefined),
});

function literal(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((value) => literal(value, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((field) => [field.name.value, literal(field.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      return undefined;
  }
}

/** Any JSON value: event payloads, span attributes, tool schemas, audit before/after. */
export const JsonScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literal,
});
