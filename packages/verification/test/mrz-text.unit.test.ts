import { computeMrzCheckDigit, parseMrz } from '../src/parsers/mrz.parser';
import {
  arbitrationRivals,
  bestMrz,
  cellReadsIn,
  completedByVote,
  dataLineFromSecondRead,
  documentNumberRepairs,
  mrzCandidates,
  numberReadIn,
  repairByPosition,
  votedLines,
} from '../src/readers/mrz-text';

// A 2012 DNI back's zone (corpus seed 42, document 46), every check digit holding.
const DNI = ['IDARG25617151<2<<<<<<<<<<<<<<<', '7606124F2706030ARG<<<<<<<<<<<4', 'GOMEZ<<CAMILA<<<<<<<<<<<<<<<<<'];

describe('repairByPosition on an Argentine DNI', () => {
  it('when the number is read with Z for 2 and S for 5, then the check digits hold either way, and the repair gives the digits', () => {
    const misread = ['IDARGZS617151<2<<<<<<<<<<<<<<<', DNI[1] ?? '', DNI[2] ?? ''];
    // Why the number's positions must take digits on a DNI: 35·7 + 28·3 and 2·7 + 5·3 differ by 300.
    expect(computeMrzCheckDigit('ZS617151<')).toBe(computeMrzCheckDigit('25617151<'));
    expect(parseMrz(misread)).toMatchObject({ valid: true });

    const repaired = repairByPosition(misread, 'TD1');

    expect(repaired.lines).toEqual(DNI);
    expect(repaired.changed).toBe(2);
  });

  it('when the same letters stand in the number of another issuer, then they stay (its numbers may hold letters)', () => {
    const foreign = ['IDBRAZS617151<2<<<<<<<<<<<<<<<', '7606124F2706030BRA<<<<<<<<<<<4', 'GOMEZ<<CAMILA<<<<<<<<<<<<<<<<<'];

    expect(repairByPosition(foreign, 'TD1').lines[0]).toBe(foreign[0]);
  });

  it('when a lone 0 stands inside the optional data filler, then it becomes the < it was printed as', () => {
    const glare = ['IDARG25617151<2<<<<<<<<<0<<<<<', DNI[1] ?? '', DNI[2] ?? ''];
    // '0' and '<' both count 0: no check digit tells them apart.
    expect(parseMrz(glare)).toMatchObject({ valid: true });

    expect(repairByPosition(glare, 'TD1').lines).toEqual(DNI);
  });

  it('when a digit follows data in the optional field, then it is left alone', () => {
    const data = ['IDARG25617151<2AB0<<<<<<<<<<<<', DNI[1] ?? '', DNI[2] ?? ''];

    expect(repairByPosition(data, 'TD1').lines[0]).toBe(data[0]);
  });
});

describe('repairByPosition on the sex', () => {
  // A 2009 DNI front's zone (corpus seed 6001, document 103), every check digit holding.
  const CARD = ['IDARG1377248<<8<<<<<<<<<<<<<<<', '4708212M2605144ARG<<<<<<<<<<<4', 'FERNANDEZ<<SEBASTIAN<<<<<<<<<<'];
  const withSex = (sex: string) => [CARD[0] ?? '', `${CARD[1]?.slice(0, 7)}${sex}${CARD[1]?.slice(8)}`, CARD[2] ?? ''];

  it('when a blurred M is read as H, then the sex becomes M (no check digit covers it, and H is no sex)', () => {
    expect(parseMrz(withSex('H'))).toMatchObject({ valid: false });

    const repaired = repairByPosition(withSex('H'), 'TD1');

    expect(repaired.lines).toEqual(CARD);
    expect(repaired.changed).toBe(1);
    expect(parseMrz(repaired.lines)).toMatchObject({ valid: true });
  });

  it('when an F is read as E, or an X as K, then the one sex that looks like it is taken', () => {
    expect(repairByPosition(withSex('E'), 'TD1').lines[1]?.charAt(7)).toBe('F');
    expect(repairByPosition(withSex('K'), 'TD1').lines[1]?.charAt(7)).toBe('X');
  });

  it('when the letter looks like no sex, then it stays as read and the zone stays invalid', () => {
    expect(repairByPosition(withSex('P'), 'TD1').lines[1]?.charAt(7)).toBe('P');
  });

  it('when a passport’s sex is read as N, then it becomes M at its own place (TD3: the data line’s 21st character)', () => {
    const passport = ['P<ARGPEREZ<<JUAN<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'AAA1234564ARG8001014N3001012<<<<<<<<<<<<<<02'];

    expect(repairByPosition(passport, 'TD3').lines[1]?.charAt(20)).toBe('M');
  });
});

describe('repairByPosition on an Argentine passport', () => {
  // s7-000041 (tilted 14°): both engines read the number AAB058028 as AABOS8028. The corpus printed this
  // zone's composite check digit wrong on purpose (a defective passport), so only the number's is asked.
  const PRINTED = ['P<ARGPEREYRA<RAMIREZ<<JUAN<PABLO<<<<<<<<<<<<', 'AAB0580288ARG5112081M32121835320131<<<<<<<90'];

  it('when a number of the current series is read with O for 0 and S for 5, then its last six positions take digits and its check digit holds', () => {
    const misread = [PRINTED[0] ?? '', 'AABOS80288ARG5112081M32121835320131<<<<<<<90'];
    expect(parseMrz(misread)).toMatchObject({ check_digits: { document_number: false } });

    const repaired = repairByPosition(misread, 'TD3');

    expect(repaired.lines).toEqual(PRINTED);
    expect(parseMrz(repaired.lines)).toMatchObject({ check_digits: { document_number: true, composite: false } });
    expect(bestMrz(misread)?.mrz.lines).toEqual(PRINTED);
  });

  it('when a digit of the number is read as a letter worth as much mod 10, then the check digits hold and still it is not taken', () => {
    // Seed 99, document 167 (low light): 'AAD871346' read as 'AADS71346'. S weighs 28 and 8 weighs 8: at
    // weight 7 they differ by 140, so the number's and the composite's check digits hold for both.
    const misread = ['P<ARGSILVA<<ANGEL<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'AADS713460ARG6308029M340111415317486<<<<<<14'];
    expect(parseMrz(misread)).toMatchObject({ valid: true });

    const best = bestMrz(misread);

    expect(best?.mrz.valid).toBe(false);
    const passportReadings = mrzCandidates(misread).filter((candidate) => candidate.lines[1]?.length === 44);
    expect(passportReadings.map((candidate) => candidate.lines[1]?.slice(0, 9))).toEqual(['AAD571346']);
  });

  it('when the same number stands in another state’s passport, then its letters stay (numbers there may hold letters anywhere)', () => {
    const foreign = ['P<BRAPEREYRA<RAMIREZ<<JUAN<PABLO<<<<<<<<<<<<', 'AABOS80288BRA5112081M32121835320131<<<<<<<90'];
    expect(repairByPosition(foreign, 'TD3').lines[1]?.slice(0, 9)).toBe('AABOS8028');
  });

  it('when an Argentine number is of the old series (the DNI number and an N), then it is left as read', () => {
    const old = ['P<ARGPEREYRA<RAMIREZ<<JUAN<PABLO<<<<<<<<<<<<', '25617151N4ARG5112081M2112183<<<<<<<<<<<<<<06'];
    expect(repairByPosition(old, 'TD3').lines[1]?.slice(0, 9)).toBe('25617151N');
  });
});

describe('repairByPosition on state codes', () => {
  // A German passport's zone (corpus seed 42, document 31), every check digit holding.
  const GERMAN = ['P<D<<BRIZUELA<<ANGEL<<<<<<<<<<<<<<<<<<<<<<<<', 'C71X67T566D<<7203028M3603136<<<<<<<<<<<<<<08'];

  it('when the nationality is read as no state (O<< for D<<), then it becomes the one a look-alike letter makes', () => {
    const misread = [GERMAN[0] ?? '', 'C71X67T566O<<7203028M3603136<<<<<<<<<<<<<<08'];
    // No check digit covers the nationality: the misread is as valid as the zone.
    expect(parseMrz(misread)).toMatchObject({ valid: true });

    expect(repairByPosition(misread, 'TD3')).toEqual({ lines: GERMAN, changed: 1 });
  });

  it('when the issuing state of a DNI is read with a look-alike letter (ARC), then it is ARG again', () => {
    const misread = ['IDARC25617151<2<<<<<<<<<<<<<<<', DNI[1] ?? '', DNI[2] ?? ''];

    expect(repairByPosition(misread, 'TD1').lines).toEqual(DNI);
  });

  it('when the nationality is read with 4 for A (4RG), then it is ARG: a digit cannot stand there', () => {
    // Corpus seed 7, document 58 (a screen recapture), every check digit holding either way.
    const zone = ['P<ARGNANCUCHEO<<JERONIMO<<<<<<<<<<<<<<<<<<<<', 'AAB1922193ARG8903196M240907636152046<<<<<<78'];
    const misread = [zone[0] ?? '', 'AAB19221934RG8903196M240907636152046<<<<<<78'];
    expect(parseMrz(misread)).toMatchObject({ valid: true });

    expect(repairByPosition(misread, 'TD3')).toEqual({ lines: zone, changed: 1 });
  });

  it('when a code is a state, then it stays, even one a look-alike letter away from another (DEU, not DEV)', () => {
    const zone = ['P<DEUMUELLER<<JOSE<<<<<<<<<<<<<<<<<<<<<<<<<<', 'C01X00T566DEU7203028M3603136<<<<<<<<<<<<<<08'];

    expect(repairByPosition(zone, 'TD3')).toEqual({ lines: zone, changed: 0 });
  });

  it('when several states are a look-alike letter away, or none, then the code stays as read', () => {
    // 'BOI': D for O gives BDI (Burundi), L for I gives BOL (Bolivia).
    const ambiguous = ['P<BOLGOMEZ<<ANA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'AB12345670BOI8201032F2903061<<<<<<<<<<<<<<02'];
    const unknown = ['P<BOLGOMEZ<<ANA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'AB12345670QQQ8201032F2903061<<<<<<<<<<<<<<02'];

    expect(repairByPosition(ambiguous, 'TD3')).toEqual({ lines: ambiguous, changed: 0 });
    expect(repairByPosition(unknown, 'TD3')).toEqual({ lines: unknown, changed: 0 });
  });
});

describe('bestMrz', () => {
  it('when OCR read the DNI number with look-alike letters, then the reading given is the digits', () => {
    const best = bestMrz(['IDARGZS617151<2<<<<<<<<<<<<<<<', DNI[1] ?? '', DNI[2] ?? '']);

    expect(best?.mrz.valid).toBe(true);
    expect(best?.mrz.lines).toEqual(DNI);
    expect(best?.candidate.repaired_characters).toBe(2);
  });

  it('when OCR split a line into words, then they are joined into the zone', () => {
    const best = bestMrz(['IDARG25617151<2<<<<<<<<< <<<<<', DNI[1] ?? '', DNI[2] ?? '']);

    expect(best?.mrz.lines).toEqual(DNI);
  });

  it('when a DNI number read with letters passes its check digits by chance, then it is not taken: the digits, failing, are', () => {
    // Seed 7, document 0: '34236055' read as 'S4236OS5', number and composite holding.
    const misread = ['IDARGS4236OS5<4<<<<<<<<<<<<<<<', '8606246M2611239ARG<<<<<<<<<<<8', 'CASTANEDA<DE<LA<FUENTE<<LUCAS<'];
    expect(parseMrz(misread)).toMatchObject({ valid: true });

    const best = bestMrz(misread);

    expect(best?.mrz.valid).toBe(false);
    expect(best?.mrz.lines[0]).toBe('IDARG54236055<4<<<<<<<<<<<<<<<');
  });

  it('when the first line starts with a filler, then no format is fitted to it', () => {
    // A passport's lines with their first character lost, cut to a TD2's length.
    const cut = ['<ARGCARDOZO<<JOSE<LUIS<<<<<<<<<<<<<<', 'AAF6010983ARG8201032M190306130372315'];

    expect(bestMrz(cut)).toBeNull();
  });

  it('when every check digit holds but the issuing state is no code or the document code no TD2 code, then the read is not taken', () => {
    // s99-000178's kind: a screen's TD3 read as a TD2 of state `GSU`, or of code `SU` and state `ARE`,
    // every check digit holding (a TD3 data line cut to 36 keeps three of a TD2's four check digits).
    const withCheck = (field: string): string => `${field}${computeMrzCheckDigit(field) ?? ''}`;
    const dataLine = (state: string): string => {
      const head = `${withCheck('AAB123456')}${state}${withCheck('850412')}F${withCheck('310905')}<<<<<<<`;
      return `${head}${computeMrzCheckDigit(`${head.slice(0, 10)}${head.slice(13, 20)}${head.slice(21)}`) ?? ''}`;
    };
    const cut = ['I<GSUAREZ<<MARIA'.padEnd(36, '<'), dataLine('ARG')];
    const names = ['SUAREZ<DE<LA<FUENTE<<LUCAS'.padEnd(36, '<'), dataLine('ARG')];
    const specimen = ['I<UTOERIKSSON<<ANNA<MARIA'.padEnd(36, '<'), dataLine('UTO')];
    expect(parseMrz(cut)).toMatchObject({ valid: true });
    expect(parseMrz(names)).toMatchObject({ valid: true });

    expect(bestMrz(cut)).toBeNull();
    expect(bestMrz(names)).toBeNull();
    expect(bestMrz(specimen)?.mrz).toMatchObject({ valid: true, lines: specimen });
  });
});

describe('arbitrationRivals', () => {
  const chosen = '2:P<BRAHARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<<';

  it('when another turn of the search read the same zone with other names, then they are among the rivals', () => {
    // s7-000048: `HARTINEZ` by every variant at −4°, `MARTINEZ` by one at −5°.
    const seen = [chosen, '2:P<BRAMARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<<'];

    expect(arbitrationRivals(chosen, [], seen)).toEqual(['P<BRAMARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<<']);
  });

  it('when names were read of another shape, code or state, then they are no rivals, and the zone’s own are kept once', () => {
    const zone = 'P<BRAMARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<<';
    const seen = [
      `2:${zone}`,
      '2:HP<BRAMARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<',
      '2:P<URYMARTINEZ<<NOA<<<<<<<<<<<<<<<<<<<<<<<<<<',
      '3:MARTINEZ<<NOA',
    ];

    expect(arbitrationRivals(chosen, [zone], seen)).toEqual([zone]);
  });

  it('when the same names were read cut to another format’s length, then that line is no rival', () => {
    // s42-000058: `AYELEN` in a TD3's line and in the same line cut to a TD2's 36 characters; the second
    // engine holding both, the pick was ambiguous and the names were withheld.
    const td3 = 'P<ARGACOSTA<<AYELEN<<<<<<<<<<<<<<<<<<<<<<<<<';
    const td2 = 'P<ARGACOSTA<<AYELEN<<<<<<<<<<<<<<<<<';
    const key = '2:P<ARGACOSTA<<ATELEN<<<<<<<<<<<<<<<<<<<<<<<<<';

    expect(arbitrationRivals(key, [td2], [`2:${td2}`, `2:${td3}`])).toEqual([td3]);
  });
});

describe('cellReadsIn and votedLines', () => {
  // s42-000058, a passport on a screen, read descreened at three turns: every line 44 cells, a space
  // where the engine could not name a character, and no read valid alone.
  const READS = [
    ['P<ARGACOSTA<<AYELEN<< <<<<<<<  < <<<< < < <<', 'AA093 9381ARG690211 F280917119528825< <<<<44'],
    ['P ARGAC0STA<<ATELEN < 4<<<<< <<<<<< <<<<<< <', 'AAD9369381ARG6902117F28091 119528525< <<<<  '],
    ['P<ARGACOSTA< ATELEN4<444 Q44  <<4<4   <<<<<<', 'A  9369381ARG690211 F28Q91 119528825Q<<<<< 4'],
  ];
  const DATA_LINE = 'AAD9369381ARG6902117F280917119528825<<<<<<44';

  it('when a read gives a format’s lines cell for cell, then they are found among its OCR lines', () => {
    const [read] = cellReadsIn(['NOISE ABOVE', ...(READS[0] ?? [])]);

    expect(read).toEqual({ lines: READS[0], source_lines: [1, 2] });
    expect(cellReadsIn(['P<ARGACOSTA<<AYELEN', 'AAD9369381'])).toEqual([]);
  });

  it('when three reads are voted cell by cell, then the data line is read as printed and a tied cell is tried both ways', () => {
    const reads = READS.map((lines) => ({ lines, source_lines: [0, 1] }));
    const outcomes = votedLines(reads) ?? [];

    // Cell 2 is tied between 0 and D; every other cell of the data line has a majority.
    expect(outcomes.map((lines) => lines[1])).toEqual([DATA_LINE.replace('AAD', 'AA0'), DATA_LINE]);
    expect(bestMrz(outcomes[1] ?? [], 44)?.mrz.valid).toBe(true);
    expect(bestMrz(outcomes[0] ?? [], 44)?.mrz.valid).toBe(false);
  });

  it('when a read’s names differ from the vote’s, then its gaps filled by the vote give them', () => {
    const reads = READS.map((lines) => ({ lines, source_lines: [0, 1] }));
    const [, voted = []] = votedLines(reads) ?? [];

    // Two reads of three gave `ATELEN`: the vote's names; the first read's `AYELEN` stays its own.
    expect(voted[0]).toBe('P<ARGACOSTA<<ATELEN<<<<<<<<<<<<<<<<<<<<<<<<<');
    expect(completedByVote(reads[0] ?? { lines: [], source_lines: [] }, voted)[0]).toBe(
      'P<ARGACOSTA<<AYELEN<<<<<<<<<<<<<<<<<<<<<<<<<',
    );
    // A digit where only a letter stands is no reading of the cell: the vote's is taken.
    expect(completedByVote(reads[1] ?? { lines: [], source_lines: [] }, voted)[0]).toBe(
      'P<ARGACOSTA<<ATELEN<<<<<<<<<<<<<<<<<<<<<<<<<',
    );
  });

  it('when fewer than three reads, reads of other shapes, or a cell no read named, then there is no vote', () => {
    const reads = READS.map((lines) => ({ lines, source_lines: [0, 1] }));

    expect(votedLines(reads.slice(0, 2))).toBeNull();
    expect(votedLines([...reads, { lines: ['P<ARG', 'AAD'], source_lines: [0, 1] }])).toBeNull();
    const blank = reads.map(({ lines }) => ({ lines: [lines[0] ?? '', ` ${lines[1]?.slice(1) ?? ''}`], source_lines: [0, 1] }));
    expect(votedLines(blank)).toBeNull();
  });

  it('when more than two cells are tied, then there is no vote', () => {
    const lines = (data: string) => ({ lines: ['P<ARGACOSTA<<AYELEN<<<<<<<<<<<<<<<<<<<<<<<<<', data], source_lines: [0, 1] });
    const reads = [lines(DATA_LINE), lines(DATA_LINE.replace('AAD936', 'BBE936')), lines(DATA_LINE.replace('AAD936', '      '))];

    expect(votedLines(reads)).toBeNull();
  });
});

describe('documentNumberRepairs', () => {
  // Seed 99's document 4, a Paraguayan passport: every check digit holding.
  const ZONE = ['P<PRYSUAREZ<<JOAQUIN<<<<<<<<<<<<<<<<<<<<<<<<', '5784835<<4PRY5307047M3106121<<<<<<<<<<<<<<00'];

  it('when the number is read with S for 5, then the repairs that pass include the number as printed', () => {
    const misread = [ZONE[0] ?? '', `S${ZONE[1]?.slice(1) ?? ''}`];
    expect(parseMrz(misread)).toMatchObject({ valid: false });

    expect(documentNumberRepairs(misread, 'TD3')).toContainEqual(ZONE);
  });

  it('when a check other than the number and the composite fails, or the zone holds, then there is nothing to repair', () => {
    const badBirth = [ZONE[0] ?? '', `S784835<<4PRY5307048M3106121<<<<<<<<<<<<<<00`];

    expect(documentNumberRepairs(badBirth, 'TD3')).toEqual([]);
    expect(documentNumberRepairs(ZONE, 'TD3')).toEqual([]);
    expect(documentNumberRepairs(DNI, 'TD1')).toEqual([]);
  });
});

describe('numberReadIn', () => {
  const fillers = new Set(['<', 'C', 'K', 'L', 'N']);

  it('when the other engine read the number and its check digit, its fillers as K, then it holds them', () => {
    expect(numberReadIn('5784835<<4PRY5307047M', 'X 5784835KK4PRY53O7', fillers)).toBe(true);
  });

  it('when the other engine read another character of the number, then it does not', () => {
    expect(numberReadIn('5784835<<4PRY5307047M', '5784885<<4PRY', fillers)).toBe(false);
    expect(numberReadIn('5784835<<4PRY5307047M', 'S784835<<4PRY', fillers)).toBe(false);
  });
});

describe('dataLineFromSecondRead', () => {
  // Seed 99's document 26, a Spanish passport; the legacy engine read `PABS173445` for `PAB5173448`
  // (two characters, the check digit one of them: no look-alike repair), the LSTM engine the line exactly
  // but for a filler read as K.
  const ZONE = ['P<ESPFLORES<<FLORENCIA<<<<<<<<<<<<<<<<<<<<<<', 'PAB5173448ESP7307096F3310104<<<<<<<<<<<<<<08'];
  const LEGACY = [ZONE[0] ?? '', 'PABS173445ESP7307096F3310104<<<<<<<<<<<<<<08'];
  const LSTM = 'PAB5173448ESP7307096F3310104<<<<<<<<<<K<<<<08\n';

  it('when the first read fails the number check and the other read holds the number, then the zone is the other read’s number', () => {
    expect(parseMrz(LEGACY)).toMatchObject({ valid: false });

    expect(dataLineFromSecondRead(LEGACY, 'TD3', LSTM)).toEqual(ZONE);
  });

  it('when the first read’s sex is no sex, then the other read’s is taken', () => {
    const noSex = [ZONE[0] ?? '', (ZONE[1] ?? '').replace('7307096F', '7307096N')];

    expect(dataLineFromSecondRead(noSex, 'TD3', LSTM)).toEqual(ZONE);
  });

  it('when both reads hold the same failing check digit (a defective zone), then nothing is repaired', () => {
    const defective = [ZONE[0] ?? '', (ZONE[1] ?? '').replace('PAB5173448', 'PAB5173441')];

    expect(dataLineFromSecondRead(defective, 'TD3', defective[1] ?? '')).toBeNull();
  });

  it('when the other read dropped a character before the fields, then its fields fail their checks and nothing is taken', () => {
    expect(dataLineFromSecondRead(LEGACY, 'TD3', LSTM.slice(1))).toBeNull();
  });

  it('when the other read holds a mark before the line, then the fields are read from past it (s7-000037, a dim Brazilian passport)', () => {
    const zone = ['P<BRAROMERO<<ROCIO<BEGONA<<<<<<<<<<<<<<<<<<<', 'FC171371<9BRA4212157F3002142<<<<<<<<<<<<<<02'];
    const legacy = [zone[0] ?? '', 'FC1Z1371<9BRA4212157F3002142<<<<<<<<<<<<<<02'];

    expect(dataLineFromSecondRead(legacy, 'TD3', 'BFC171371<9BRA4212157F3002142<<<<<<<<<<<<<<02\n')).toEqual(zone);
  });

  it('when a read past the first characters does not hold the nationality where the zone has it, then nothing is taken from it', () => {
    // Shifted by one, the other read's fields would stand at the wrong positions: its nationality says so.
    expect(dataLineFromSecondRead(LEGACY, 'TD3', `XX${LSTM.replace('ESP', 'EXP')}`)).toBeNull();
  });

  it('when the other read’s number holds its own check but the composite then fails, then nothing is taken', () => {
    // Other numbers, each with its own check digit, that the zone's composite rejects.
    const wrongNumber = ['PAC517344', 'PAB517345', 'PAB517354'].map((number) => `${number}${computeMrzCheckDigit(number)}`);
    for (const number of wrongNumber) {
      const text = `${number}${(ZONE[1] ?? '').slice(10)}`;
      expect(parseMrz([ZONE[0] ?? '', text])).toMatchObject({ valid: false });
      expect(dataLineFromSecondRead(LEGACY, 'TD3', text)).toBeNull();
    }
  });

  it('when the other read differs from the first where no check digit sees it (G for 6), then its number is not taken', () => {
    // A zone made for the case: number PA6517344, its check digit read 1 off by the first engine; the
    // other engine reads PAG517344, which passes the same check digit and the composite (G and 6 are
    // 16 and 6: equal modulo 10).
    const digit = (text: string) => String(computeMrzCheckDigit(text));
    const rest = `ESP7307096F3310104<<<<<<<<<<<<<<0`;
    const dataLine = (number: string, check: string) => {
      const line = `${number}${check}${rest}`;
      return `${line}${digit(`${line.slice(0, 10)}${line.slice(13, 20)}${line.slice(21, 43)}`)}`;
    };
    const truth = dataLine('PA6517344', digit('PA6517344'));
    const misreadCheck = String((Number(digit('PA6517344')) + 1) % 10);
    const first = [ZONE[0] ?? '', `${truth.slice(0, 9)}${misreadCheck}${truth.slice(10)}`];
    const otherText = `PAG517344${truth.slice(9)}`;
    expect(parseMrz([ZONE[0] ?? '', truth])).toMatchObject({ valid: true });
    expect(parseMrz([ZONE[0] ?? '', otherText])).toMatchObject({ valid: true });

    expect(dataLineFromSecondRead(first, 'TD3', otherText)).toBeNull();
    expect(dataLineFromSecondRead(first, 'TD3', truth)).toEqual([ZONE[0], truth]);
  });

  it('when the zone is no passport’s (TD1), then nothing is taken', () => {
    expect(dataLineFromSecondRead(DNI, 'TD1', DNI[1] ?? '')).toBeNull();
  });
});
