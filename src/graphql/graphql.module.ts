import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { GraphiQLAssetsController } from './graphiql-assets.controller';
import { graphiqlLandingPage } from './graphiql';
import { clientErrorStatus, formatGraphQLError } from './graphql-errors';
import { AppConfig } from '../config';
import { complexityLimit, depthLimit } from './graphql-limits';

/** The path of the admin API (outside the REST prefix, as DESIGN pins it). */
export const GRAPHQL_PATH = '/graphql';

/**
 * The admin GraphQL API, code-first: each domain module declares the resolvers of the data it
 * owns, and this module assembles them into one schema at `/graphql`. Only admins get in (the
 * global ApiKeyGuard checks each operation); errors carry client-facing codes; deep or costly
 * queries are refused before they run.
 */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        path: GRAPHQL_PATH,
        autoSchemaFile: true,
        sortSchema: true,
        // GraphiQL is served by our own landing page, from local files (no CDN)
        playground: false,
        graphiql: false,
        introspection: true,
        includeStacktraceInErrorResponses: false,
        autoTransformHttpErrors: false,
        formatError: formatGraphQLError,
        validationRules: [depthLimit(config.HELIX_GRAPHQL_MAX_DEPTH)],
        plugins: [complexityLimit(config.HELIX_GRAPHQL_MAX_COMPLEXITY), clientErrorStatus(), graphiqlLandingPage(GRAPHQL_PATH)],
        context: ({ req }: { req: unknown }) => ({ req }),
      }),
    }),
  ],
  controllers: [GraphiQLAssetsController],
})
export class AdminGraphQLModule {}
