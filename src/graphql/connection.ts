import { BadRequestException, type Type } from '@nestjs/common';
import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: 'Where a page ends, Relay style: pass endCursor as `after` for the next page.' })
export class PageInfo {
  @Field()
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

export interface ConnectionShape<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

/** A Relay-style connection type for `node` (`edges {cursor node}`, `nodes`, `pageInfo`). */
export function Connection<T>(node: Type<T>, name: string): Type<ConnectionShape<T>> {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field()
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { isAbstract: false })
  class ConnectionType {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => [node], { description: 'The nodes of `edges`, for clients that need no cursors.' })
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;
  }
  return ConnectionType;
}

/** A page of items and the cursor of each, as a connection. `nextCursor` null: the last page. */
export function toConnection<T>(items: T[], cursorOf: (item: T) => string, nextCursor: string | null): ConnectionShape<T> {
  return {
    edges: items.map((node) => ({ cursor: cursorOf(node), node })),
    nodes: items,
    pageInfo: { hasNextPage: nextCursor !== null, endCursor: nextCursor ?? (items.length ? cursorOf(items[items.length - 1]) : null) },
  };
}

/** How a list field with `first` is costed by the complexity limit: `first` times its selection. */
export const PAGE_ARGS_COMPLEXITY = ({ args, childComplexity }: { args: { first?: number | null }; childComplexity: number }) =>
  (args.first ?? 20) * Math.max(1, childComplexity);

export const MAX_PAGE = 100;

/** `first` as a page size: 1..MAX_PAGE (400 naming the argument otherwise). */
export function pageSize(first: number | undefined | null, fallback = 20): number {
  if (first === undefined || first === null) return fallback;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE) throw new BadRequestException(`first must be between 1 and ${MAX_PAGE}`);
  return first;
}
