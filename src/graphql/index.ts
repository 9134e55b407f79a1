/** The public face of src/graphql: what other modules may import from it. */
export { Connection, PAGE_ARGS_COMPLEXITY, pageSize, toConnection } from './connection';
export type { ConnectionShape } from './connection';
export { GRAPHIQL_ASSETS_PATH } from './graphiql';
export { AdminGraphQLModule, GRAPHQL_PATH } from './graphql.module';
export { requestLoader } from './request-loader';
export { DateScalar, JsonScalar } from './scalars';
export { TokenUsageFields, asEnum } from './shared-types';
