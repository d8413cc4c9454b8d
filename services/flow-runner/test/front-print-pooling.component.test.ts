import { FlowConfigSchema, newArtefactId, type ArtefactId } from '@idv/contracts';
import { barcodeReading, blankSideReading, type SideReading } from '@idv/verification';
import { captureVerdict, toStoredReading } from '../src/domain/capture-rules';
import type { FlowRecord } from '../src/domain/ports';
import type { CaptureState } from '../src/domain/steps/document-state';
import { FlowService } from '../src/use-cases/flow-service';
import { buildFlowRecord } from './flow-records';
import { privateFlowStores } from './private-database';

/**
 * A front asked for again for its print pools what its photos settled: the readings stored in a real
 * PostgreSQL beside their encrypted captures, applied to a stored flow as the reading job applies them.
 * The readings are written here (what the reader would have made of a dim card's photos), so each photo
 * settles exactly the fields the case needs.
 */
const stores = privateFlowStores('pooling');
let service: FlowService;

const unused = (): never => {
  throw new Error('not used while the front is read');
};

beforeAll(() => {
  service = new FlowService({
    store: stores.flows,
    sessions: { get: unused, redeem: unused, activity: unused, resolve: unused, hold: unused },
    sender: { send: unused },
    uploads: {} as ConstructorParameters<typeof FlowService>[0]['uploads'],
    readings: stores.artefacts,
    timeScale: 1,
  });
});

const PAYLOAD = '00123456789@PEREZ@ANA SOFIA@F@30111222@B@02/01/1990@12/03/2018';
const PRINTED = {
  surname: 'PEREZ',
  given_names: 'ANA SOFIA',
  number: '30111222',
  sex: 'F',
  birth_date: '1990-01-02',
  expiry_date: '2033-03-12',
};
type Needed = keyof typeof PRINTED;
const NEEDED = Object.keys(PRINTED) as Needed[];

/** A 2012 front's reading whose print settled `settled` only (each as the barcode says, the expiry as read). */
function frontReading(settled: Needed[], payload = PAYLOAD): SideReading {
  const fields = Object.fromEntries(settled.map((field) => [field, PRINTED[field]]));
  const status = Object.fromEntries(settled.map((field) => [field, field === 'expiry_date' ? 'read' : 'agrees']));
  return {
    ...blankSideReading('front'),
    detected_type: 'dni',
    detected_face: 'front',
    barcode: barcodeReading(payload),
    barcode_fields: {
      doc_type: 'dni',
      number: PRINTED.number,
      surname: PRINTED.surname,
      given_names: PRINTED.given_names,
      sex: 'F',
      birth_date: PRINTED.birth_date,
      expiry_date: null,
      cuil: null,
      tramite: '00123456789',
      issuing_state: 'ARG',
      series: 'B',
      issue_date: '2018-03-12',
      nationality: null,
    },
    printed: { layout: 'dni_2012_front', fields, raw: {}, status, labels: [] },
    problems: settled.length === NEEDED.length ? [] : ['print_unreadable'],
  };
}

async function documentFlow(): Promise<FlowRecord> {
  const record = buildFlowRecord({
    config: FlowConfigSchema.parse({ steps: [{ id: 'doc', type: 'document_ar', documents: ['dni'], maxAttempts: 3 }] }),
  });
  record.state.steps = { consent: { status: 'passed' }, doc: { status: 'pending', document: { captures: {} } } };
  await stores.flows.insert(record);
  return record;
}

/**
 * The person sends the next photo of the front (the submission keeps what the capture carried) and the
 * reading job stores its reading and applies it. Returns the front's capture state afterwards.
 */
async function sendFront(record: FlowRecord, reading: SideReading): Promise<CaptureState> {
  const artefactId: ArtefactId = newArtefactId();
  const current = (await stores.flows.find(record.sessionId))!;
  const previous = current.state.steps.doc!.document!.captures.front;
  current.state.steps.doc!.document!.captures.front = {
    artefactId,
    status: 'reading',
    attempts: (previous?.attempts ?? 0) + 1,
    ...(previous?.settledPrint === undefined ? {} : { settledPrint: previous.settledPrint }),
  };
  expect(await stores.flows.update(current)).toBe(true);
  await stores.artefacts.store({
    id: artefactId,
    sessionId: record.sessionId,
    kind: 'front',
    bytes: stores.image,
    contentType: 'image/jpeg',
  });
  const stored = toStoredReading(reading);
  await stores.artefacts.saveReading(artefactId, stored);
  await service.applyReading(record.sessionId, 'doc', artefactId, captureVerdict(stored));
  return (await stores.flows.find(record.sessionId))!.state.steps.doc!.document!.captures.front!;
}

describe("a front's print pooled across its photos", () => {
  test('when one photo settled the names and the next the expiry, then the second photo is taken', async () => {
    const flow = await documentFlow();

    const first = await sendFront(flow, frontReading(['number', 'sex', 'birth_date', 'expiry_date']));
    expect(first).toMatchObject({ status: 'refused', problem: 'print_unreadable', attempts: 1 });
    expect(first.settledPrint?.status).toEqual({ number: 'agrees', sex: 'agrees', birth_date: 'agrees', expiry_date: 'read' });

    const second = await sendFront(flow, frontReading(['surname', 'given_names', 'number', 'sex', 'birth_date']));
    expect(second).toMatchObject({ status: 'accepted', attempts: 2 });
  });

  test('when three photos are needed to settle everything, then what each earlier photo settled is kept', async () => {
    const flow = await documentFlow();

    await sendFront(flow, frontReading(['expiry_date', 'number']));
    expect(await sendFront(flow, frontReading(['surname', 'given_names', 'number']))).toMatchObject({ status: 'refused' });
    expect(await sendFront(flow, frontReading(['number', 'sex', 'birth_date']))).toMatchObject({
      status: 'accepted',
      attempts: 3,
    });
  });

  test("when the next photo shows another card's barcode, then nothing is pooled and it is asked for again", async () => {
    const flow = await documentFlow();

    await sendFront(flow, frontReading(['number', 'sex', 'birth_date', 'expiry_date']));
    const other = await sendFront(flow, frontReading(['surname', 'given_names', 'number', 'sex', 'birth_date'], `${PAYLOAD}@2`));

    expect(other).toMatchObject({ status: 'refused', problem: 'print_unreadable', attempts: 2 });
  });
});
