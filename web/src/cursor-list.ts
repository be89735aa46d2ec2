/** A list the API pages by cursor: `load()` reads the first page again, "Load more" appends the next. */
import { h, put } from './dom';
import { errorText, notice } from './ui';

/** One page of a cursor-paged list, as every list endpoint of the API answers. */
export interface CursorPage<T> {
  data: T[];
  next_cursor?: string | null;
}

export class CursorList<T> {
  rows: T[] = [];
  cursor: string | null = null;
  readonly more = h('button', { type: 'button', class: 'small', hidden: true }, 'Load more');

  /** `page(cursor)` reads one page (typed by the caller's path); `draw()` shows `rows`; a failure is shown in `box`. */
  constructor(private readonly page: (cursor: string | undefined) => Promise<CursorPage<T>>, private readonly draw: () => void, private readonly box: HTMLElement) {
    this.more.onclick = () => void this.load(true);
  }

  async load(append = false): Promise<void> {
    try {
      const page = await this.page(append ? this.cursor ?? undefined : undefined);
      this.rows = append ? [...this.rows, ...page.data] : page.data;
      this.cursor = page.next_cursor ?? null;
      this.more.hidden = !this.cursor;
      this.draw();
    } catch (err) {
      put(this.box, notice('error', errorText(err)));
    }
  }
}
