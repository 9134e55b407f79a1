import type { ApolloDriverConfig } from '@nestjs/apollo';
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

// The limits are HELIX_GRAPHQL_MAX_DEPTH (default 10: deep enough for a run's span tree, run →
// step → model call, with its fields) and HELIX_GRAPHQL_MAX_COMPLEXITY (default 5,000: a field
// costs 1; a list field with `first` costs `first` times its selection, see the resolvers' `complexity`).

/**
 * A validation rule refusing operations nested deeper than `max` fields (fragments followed,
 * introspection's own fields included). Deep nesting is the cheapest way to make a GraphQL
 * server do unbounded work, so it is refused before anything runs.
 *
 * One exception: inside introspection (`__schema`, `__type`), `ofType` adds no depth. It unwraps
 * a NonNull or List type to the one it wraps: a single object, null past the few wrappers a type
 * has, so a chain of them costs no more than its length. The standard introspection query that
 * GraphiQL and code generators send nests `ofType` 8 deep (15 levels in all; 6 without them).
 */
export function depthLimit(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>, introspection: boolean): number => {
      let deepest = 0;
      for (const selection of set?.selections ?? []) {
        if (selection.kind === Kind.FIELD) {
          const field = selection.name.value;
          const inIntrospection = introspection || field === '__schema' || field === '__type';
          const own = introspection && field === 'ofType' ? 0 : 1;
          deepest = Math.max(deepest, own + (selection.selectionSet ? depthOf(selection.selectionSet, seen, inIntrospection) : 0));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet, seen, introspection));
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (fragment && !seen.has(name)) deepest = Math.max(deepest, depthOf(fragment.selectionSet, new Set(seen).add(name), introspection));
        }
        if (deepest > max) break;
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set(), false);
        if (depth > max) {
          context.reportError(
            new GraphQLError(`The query is nested ${depth} levels deep; the limit is ${max}.`, {
              nodes: [node],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            }),
          );
        }
      },
    };
  };
}

/** Apollo's plugin type as Nest's driver declares it (its ESM typings, not the CJS ones). */
export type Plugin = NonNullable<ApolloDriverConfig['plugins']>[number];

/** An Apollo plugin refusing operations whose estimated cost exceeds `max` before they run. */
export function complexityLimit(max: number): Plugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const complexity = getComplexity({
            schema,
            query: document,
            operationName: request.operationName,
            variables: request.variables,
            estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
          });
          if (complexity > max) {
            throw new GraphQLError(`The query is too complex (${complexity}; the limit is ${max}). Ask for fewer items or fields.`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', complexity, maxComplexity: max },
            });
          }
        },
      };
    },
  };
}
