import { ClientError } from 'graphql-request';

export interface GqlError {
  message: string;
  extensions?: { code?: string };
}

/** The errors (and the data, which must then hold nothing) of a GraphQL request that must fail. */
export async function graphqlFailure(request: Promise<unknown>): Promise<{ errors: GqlError[]; data: unknown }> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    return { errors: (error.response.errors ?? []) as GqlError[], data: error.response.data };
  }
  throw new Error('the request succeeded; an error was expected');
}

/** The code and message of the first error of a GraphQL request that must fail. */
export async function graphqlError(request: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  const [first] = (await graphqlFailure(request)).errors;
  return { code: first?.extensions?.code, message: first?.message ?? '' };
}
