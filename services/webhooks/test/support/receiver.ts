/**
 * The webhook receiver lives in @idv/testkit (`Receiver`, `behaviours`, `receiversOfThisFile`): import it from
 * there. This re-export stays only while retry-health.component.test.ts, being edited now, still imports it
 * from here; delete it when that file imports from @idv/testkit.
 */
export { Receiver, behaviours, receiversOfThisFile, type Behaviour, type Hit } from '@idv/testkit';
