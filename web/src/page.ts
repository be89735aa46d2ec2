/** A page draws itself into `root` and returns what stops its timers when the user leaves it. */
export type Page = (root: HTMLElement, param: string | undefined) => (() => void) | void;
