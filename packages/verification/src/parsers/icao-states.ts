/**
 * The three-letter codes an MRZ's issuing state and nationality may hold (ICAO Doc 9303 Part 3, section
 * 5: "Codes for nationality, place of birth, location of issuing State/authority and other purposes"):
 * the ISO 3166-1 alpha-3 codes, plus the codes ICAO adds, written with their '<' filler as they stand in
 * the zone. Checked on 2026-11-26 against the list of the `mrz` npm package (cheminfo, MIT), which holds
 * the same 249 ISO codes and the ICAO additions below.
 */
const ISO_3166_ALPHA_3 = `
ABW AFG AGO AIA ALA ALB AND ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE BDI BEL BEN BES BFA BGD BGR BHR BHS
BIH BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA CAF CAN CCK CHE CHL CHN CIV CMR COD COG COK COL COM CPV
CRI CUB CUW CXR CYM CYP CZE DEU DJI DMA DNK DOM DZA ECU EGY ERI ESH ESP EST ETH FIN FJI FLK FRA FRO FSM
GAB GBR GEO GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF GUM GUY HKG HMD HND HRV HTI HUN IDN IMN
IND IOT IRL IRN IRQ ISL ISR ITA JAM JEY JOR JPN KAZ KEN KGZ KHM KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE
LKA LSO LTU LUX LVA MAC MAF MAR MCO MDA MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ MUS
MWI MYS MYT NAM NCL NER NFK NGA NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PCN PER PHL PLW PNG POL PRI PRK
PRT PRY PSE PYF QAT REU ROU RUS RWA SAU SDN SEN SGP SGS SHN SJM SLB SLE SLV SMR SOM SPM SRB SSD STP SUR
SVK SVN SWE SWZ SXM SYC SYR TCA TCD TGO THA TJK TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI URY
USA UZB VAT VCT VEN VGB VIR VNM VUT WLF WSM YEM ZAF ZMB ZWE`;

/**
 * ICAO's own: Germany's D; the British nationality classes (GBD, GBN, GBO, GBP, GBS); Kosovo (RKS, and
 * XXK on some documents); the European Union (EUE); the United Nations (UNO, UNA, UNK) and other
 * organisations (XBA, XCC, XCE, XCO, XDC, XEC, XES, XIM, XOM, XPO); stateless (XXA), refugees (XXB, XXC)
 * and unspecified (XXX); the retired ANT (Netherlands Antilles) and NTZ (Neutral Zone), still on old
 * documents' nationality.
 */
const ICAO_ADDITIONS = `
D GBD GBN GBO GBP GBS RKS XXK EUE UNO UNA UNK XBA XCC XCE XCO XDC XEC XES XIM XOM XPO XXA XXB XXC XXX
ANT NTZ`;

// Utopia, the issuing state of ICAO 9303's own specimens (and of many issuers' specimen documents): a
// reader that called it no state would take the standard's examples for misreads.
const SPECIMEN_STATE = 'UTO';

const STATE_CODES: ReadonlySet<string> = new Set(
  `${ISO_3166_ALPHA_3} ${ICAO_ADDITIONS} ${SPECIMEN_STATE}`
    .split(/\s+/)
    .filter((code) => code !== '')
    .map((code) => code.padEnd(3, '<')),
);

/** Whether a three-character MRZ field (filler included, `D<<`) is a state or organisation code. */
export function isStateCode(field: string): boolean {
  return STATE_CODES.has(field);
}
