/** The `order.settle` each entry of a confirmer's `order.settlements` stands for (other commands as they are), for tests that read what a pass appended. */
export function settlesOf(commands: any[]): any[] {
  return commands.flatMap((c) => (c.type === 'order.settlements' ? c.entries.map((e: any) => ({ type: 'order.settle', accountId: c.accountId, ...e })) : [c]));
}
