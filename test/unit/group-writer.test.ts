import { GroupWriter } from '../../services/platform/group-writer';

describe('GroupWriter: rows that finish while a write is under way go together in the next', () => {
  test('a lone row is written at once; rows added during that write go in one group after it', async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const w = new GroupWriter<number>(async (rows) => {
      groups.push(rows);
      if (groups.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = w.add(1);
    const later = [w.add(2), w.add(3), w.add(4)];
    expect(groups).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  test('a failed write fails every row of its group and none of the next', async () => {
    let calls = 0;
    const w = new GroupWriter<string>(async () => {
      calls += 1;
      if (calls === 2) throw new Error('database away');
    });
    const a = w.add('a');
    const [b, c] = [w.add('b'), w.add('c')];
    await expect(a).resolves.toBeUndefined();
    await expect(b).rejects.toThrow('database away');
    await expect(c).rejects.toThrow('database away');
    await expect(w.add('d')).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });

  test('groups hold at most maxRows', async () => {
    const sizes: number[] = [];
    const w = new GroupWriter<number>(async (rows) => void sizes.push(rows.length), 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => w.add(n)));
    expect(sizes).toEqual([1, 2, 2]);
  });
});
