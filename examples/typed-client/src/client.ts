// A minimal typed GraphQL client: HTTP for queries and mutations, graphql-ws for subscriptions, typed by the documents
// GraphQL Code Generator produced (TypedDocumentNode carries result and variable types).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';

/** `authorization: Bearer …` (admin) or `x-api-key` (client): sent as HTTP headers and as graphql-ws connectionParams. */
export type Credentials = { authorization: string } | { 'x-api-key': string } | Record<string, never>;

export class GraphQLError extends Error {
  constructor(readonly errors: ReadonlyArray<{ message: string; extensions?: { code?: string } }>) {
    super(errors.map((e) => `${e.extensions?.code ?? 'ERROR'}: ${e.message}`).join('; '));
  }
}

export class ContentPlatformClient {
  private ws?: WsClient;

  constructor(
    readonly url: string,
    private readonly credentials: Credentials = {},
  ) {}

  /** Runs a query or mutation; resolves to its typed `data` or throws with the errors' codes. */
  async request<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
  ): Promise<TResult> {
    const response = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.credentials },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const result = (await response.json()) as ExecutionResult<TResult>;
    if (result.errors?.length || !result.data)
      throw new GraphQLError(result.errors ?? [{ message: `HTTP ${response.status}` }]);
    return result.data;
  }

  /** Subscribes over graphql-ws; each value is the typed `data` of one event. */
  async *subscribe<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
  ): AsyncGenerator<TResult> {
    this.ws ??= createClient({
      url: `${this.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { ...this.credentials },
    });
    for await (const result of this.ws.iterate<TResult>({
      query: print(document),
      variables: variables as Record<string, unknown>,
    })) {
      if (result.errors?.length || !result.data) throw new GraphQLError(result.errors ?? [{ message: 'empty event' }]);
      yield result.data;
    }
  }

  /** Closes the WebSocket, if one was opened. */
  async close(): Promise<void> {
    await this.ws?.dispose();
  }
}
