// Answers of the price sources in their public shapes, written for the tests from the formats:
// - ENTSO-E: Transparency Platform RESTful API user guide, "Day-ahead Prices [12.1.D]" (document
//   type A44): IEC 62325-451-3 Publication_MarketDocument (namespace ...publicationdocument:7:3), and
//   the Acknowledgement_MarketDocument (namespace ...acknowledgementdocument:7:0) with Reason code 999
//   when no data matches.
// - Energy-Charts: api.energy-charts.info OpenAPI, GET /price: {license_info, unix_seconds, price,
//   unit: "EUR / MWh", deprecated}.

export interface PeriodFixture {
  start: string;
  end: string;
  resolution: string;
  points: ReadonlyArray<readonly [position: number, price: number | string]>;
}

export interface SeriesFixture {
  curve?: string;
  currency?: string;
  unit?: string;
  classification?: number;
  periods: PeriodFixture[];
}

export function a44(
  series: SeriesFixture[],
  ns = 'urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:3',
): string {
  const first = series[0]?.periods[0];
  const body = series
    .map(
      (one, i) => `  <TimeSeries>
    <mRID>${i + 1}</mRID>
    <auction.type>A01</auction.type>
    <businessType>A62</businessType>
    <in_Domain.mRID codingScheme="A01">10YBE----------2</in_Domain.mRID>
    <out_Domain.mRID codingScheme="A01">10YBE----------2</out_Domain.mRID>
    <contract_MarketAgreement.type>A01</contract_MarketAgreement.type>
    <currency_Unit.name>${one.currency ?? 'EUR'}</currency_Unit.name>
    <price_Measure_Unit.name>${one.unit ?? 'MWH'}</price_Measure_Unit.name>
    <curveType>${one.curve ?? 'A03'}</curveType>${
      one.classification === undefined
        ? ''
        : `\n    <classificationSequence_AttributeInstanceComponent.position>${one.classification}</classificationSequence_AttributeInstanceComponent.position>`
    }
${one.periods
  .map(
    (period) => `    <Period>
      <timeInterval>
        <start>${period.start}</start>
        <end>${period.end}</end>
      </timeInterval>
      <resolution>${period.resolution}</resolution>
${period.points
  .map(
    ([position, price]) =>
      `      <Point>\n        <position>${position}</position>\n        <price.amount>${price}</price.amount>\n      </Point>`,
  )
  .join('\n')}
    </Period>`,
  )
  .join('\n')}
  </TimeSeries>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<Publication_MarketDocument xmlns="${ns}">
  <mRID>a8b0c1d2e3f4</mRID>
  <revisionNumber>1</revisionNumber>
  <type>A44</type>
  <sender_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</sender_MarketParticipant.mRID>
  <sender_MarketParticipant.marketRole.type>A32</sender_MarketParticipant.marketRole.type>
  <receiver_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</receiver_MarketParticipant.mRID>
  <receiver_MarketParticipant.marketRole.type>A33</receiver_MarketParticipant.marketRole.type>
  <createdDateTime>2024-10-05T12:14:03Z</createdDateTime>
  <period.timeInterval>
    <start>${first?.start ?? ''}</start>
    <end>${first?.end ?? ''}</end>
  </period.timeInterval>
${body}
</Publication_MarketDocument>
`;
}

/** The acknowledgement ENTSO-E answers when nothing matches the query (a day not published yet). */
export function acknowledgement(
  code = '999',
  text = 'No matching data found for Data item Energy Prices [12.1.D]',
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Acknowledgement_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:7:0">
  <mRID>c4c1f0a0-1b1f-4c7e-9d9e-000000000000</mRID>
  <createdDateTime>2026-11-29T12:20:00Z</createdDateTime>
  <sender_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</sender_MarketParticipant.mRID>
  <sender_MarketParticipant.marketRole.type>A32</sender_MarketParticipant.marketRole.type>
  <receiver_MarketParticipant.mRID codingScheme="A01">10X1001A1001B54W</receiver_MarketParticipant.mRID>
  <receiver_MarketParticipant.marketRole.type>A39</receiver_MarketParticipant.marketRole.type>
  <received_MarketDocument.createdDateTime>2026-11-29T12:20:00Z</received_MarketDocument.createdDateTime>
  <Reason>
    <code>${code}</code>
    <text>${text}</text>
  </Reason>
</Acknowledgement_MarketDocument>
`;
}

/** The two hours of the BE document of 2024-10-06 the tests use: positions 1 and 5 given, A03. */
export const BE_SAMPLE = a44([
  {
    curve: 'A03',
    periods: [
      {
        start: '2024-10-06T10:00Z',
        end: '2024-10-06T12:00Z',
        resolution: 'PT15M',
        points: [
          [1, '5.25'],
          [5, '-0.01'],
        ],
      },
    ],
  },
]);

export function energyCharts(unixSeconds: number[], price: Array<number | null>, unit = 'EUR / MWh'): string {
  return JSON.stringify({
    license_info: 'CC BY 4.0 (creativecommons.org/licenses/by/4.0) from Bundesnetzagentur | SMARD.de',
    unix_seconds: unixSeconds,
    price,
    unit,
    deprecated: false,
  });
}

/** A full PT15M A01 period of `count` quarters from `start`, price = position (or `price(pos)`). */
export function fullPeriod(
  start: string,
  end: string,
  price: (position: number) => number = (p) => p,
): PeriodFixture {
  const count = (Date.parse(end) - Date.parse(start)) / 900_000;
  return {
    start,
    end,
    resolution: 'PT15M',
    points: Array.from({ length: count }, (_, i) => [i + 1, price(i + 1)] as const),
  };
}
