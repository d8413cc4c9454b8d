import { contractPath } from '@idv/contracts';
import { expressPath } from '../src/http/route';

describe("a contract path's parameters", () => {
  test('when a parameter is named in camelCase, then express routes it and the client fills it', () => {
    const path = '/internal/accounts/{id}/sessions/{sessionId}/timeline';

    expect(expressPath(path)).toBe('/internal/accounts/:id/sessions/:sessionId/timeline');
    expect(contractPath({ path }, { id: 'acc_1', sessionId: 'vs/2' })).toBe('/internal/accounts/acc_1/sessions/vs%2F2/timeline');
  });

  test('when a parameter has no value, then the path is refused rather than sent with its braces', () => {
    expect(() => contractPath({ path: '/internal/sessions/{sessionId}' }, {})).toThrow(RangeError);
  });
});
