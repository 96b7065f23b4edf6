import type { ListPage, WithResponse } from "./types.ts";

/**
 * A list route walked page by page: `for await (const proof of client.proofs.list({ linked: false }))` gives
 * every item, following `next_cursor` until `has_more` is false. Nothing is requested until it is iterated.
 */
export class ListIterable<T> implements AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<WithResponse<ListPage<T>>>;
  readonly #cursor: string | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<WithResponse<ListPage<T>>>, cursor: string | undefined) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** The first page only, with its `has_more`, `next_cursor` and `lastResponse`. */
  firstPage(): Promise<WithResponse<ListPage<T>>> {
    return this.#fetchPage(this.#cursor);
  }

  /** Every page in turn (each with its `lastResponse`, rate-limit headers included). */
  async *pages(): AsyncGenerator<WithResponse<ListPage<T>>, void, undefined> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      if (!page.has_more || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects the items, at most `max` of them (default 10 000, so that a mistake cannot read forever). */
  async toArray(max = 10_000): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) {
      if (items.length >= max) break;
      items.push(item);
    }
    return items;
  }
}
