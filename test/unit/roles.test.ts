import { backgroundNice, parseRoles, rolesOfProcess } from '../../services/roles';

describe('rolesOfProcess: API workers take the api role and nothing else', () => {
  const all = parseRoles('all');
  test('one API process: everything in the main process, no workers', () => {
    expect(rolesOfProcess(all, 1, false)).toEqual({ here: all, apiWorkers: 0 });
  });
  test('several: the primary keeps every other role (partition owners once), workers run only the api', () => {
    const primary = rolesOfProcess(all, 3, false);
    expect(primary.apiWorkers).toBe(3);
    expect(primary.here).toEqual(all.filter((r) => r !== 'api'));
    expect(rolesOfProcess(all, 3, true)).toEqual({ here: ['api'], apiWorkers: 0 });
  });
  test('no api role asked for: no workers whatever the knob says', () => {
    expect(rolesOfProcess(['processor', 'relay'], 4, false)).toEqual({ here: ['processor', 'relay'], apiWorkers: 0 });
  });
});

describe('backgroundNice: only a process with no answer-path role is niced', () => {
  test('chain roles alone: niced', () => {
    expect(backgroundNice(['broadcaster', 'confirmer'], 10)).toBe(10);
    expect(backgroundNice(['reconciler', 'stats', 'dispatcher'], 7)).toBe(7);
  });
  test('any of api, processor, relay: unchanged, whatever else runs beside it', () => {
    expect(backgroundNice(parseRoles('all'), 10)).toBe(0);
    expect(backgroundNice(['processor', 'relay'], 10)).toBe(0);
    expect(backgroundNice(['api'], 10)).toBe(0);
    expect(backgroundNice(['relay', 'broadcaster'], 10)).toBe(0);
  });
  test('knob at 0: off', () => {
    expect(backgroundNice(['broadcaster'], 0)).toBe(0);
  });
});
