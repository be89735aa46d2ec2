import { parseRoles, rolesOfProcess } from '../../services/roles';

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
