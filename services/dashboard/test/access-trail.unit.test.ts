import type { EvidenceDownload, UserId } from '@idv/contracts';
import type { AuditRecord } from '../src/adapters/audit.repository';
import { mergeTrail, trailCsvCells } from '../src/use-cases/access-trail';

/** A session's access trail: the members' audit entries and the evidence links' uses, one list by time. */
const member = { kind: 'member', id: 'usr_01' as UserId, name: 'Ana', email: 'ana@example.com' } as const;
const shown = (id: number, at: string, action = 'session.data_shown'): AuditRecord => ({
  id,
  at: new Date(at),
  action,
  target: 'vs_1',
  address: '10.0.0.1',
  actor: member,
});
const download = (at: string, outcome: EvidenceDownload['outcome'] = 'served'): EvidenceDownload => ({
  at,
  artifact: 'front',
  outcome,
  client_address: '203.0.113.9',
});

describe('a session access trail', () => {
  test('when both sources have entries, then they are one list, newest first, each source keeping its order at the same instant', () => {
    const audit = [
      shown(3, '2026-11-30T10:00:03.000Z'),
      shown(2, '2026-11-30T10:00:01.000Z'),
      shown(1, '2026-11-30T10:00:01.000Z'),
    ];
    const downloads = [download('2026-11-30T10:00:02.000Z'), download('2026-11-30T10:00:01.000Z', 'expired')];

    const merged = mergeTrail(audit, downloads);

    expect(
      merged.map((entry) => (entry.kind === 'audit' ? `audit ${entry.record.id}` : `download ${entry.download.outcome}`)),
    ).toEqual(['audit 3', 'download served', 'audit 2', 'audit 1', 'download expired']);
  });

  test("when a download is exported, then its row has the audit export's columns: the link as actor, the session's artifact, its address", () => {
    const [entry] = mergeTrail([], [download('2026-11-30T10:00:02.000Z', 'bad_signature')]);

    expect(trailCsvCells(entry!, 'vs_1')).toEqual([
      '2026-11-30T10:00:02.000Z',
      'evidence_link',
      '',
      '',
      'session.evidence_link_invalid',
      'vs_1/front',
      '203.0.113.9',
    ]);
    expect(trailCsvCells(mergeTrail([shown(1, '2026-11-30T10:00:00.000Z')], [])[0]!, 'vs_1')).toEqual([
      '2026-11-30T10:00:00.000Z',
      'member',
      'Ana',
      'ana@example.com',
      'session.data_shown',
      'vs_1',
      '10.0.0.1',
    ]);
  });
});
