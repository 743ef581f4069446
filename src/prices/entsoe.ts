import {
  addSlot,
  MAX_QUARTERS,
  refused,
  resolutionMinutes,
  sortedQuarters,
  utcTime,
  type SpotAnswer,
} from './spot.js';

/**
 * ENTSO-E Transparency Platform day-ahead prices (document type A44, "Energy Prices [12.1.D]"), as
 * its RESTful API answers (Transparency Platform RESTful API user guide, and the IEC 62325-451-3
 * Publication_MarketDocument it uses): a `Publication_MarketDocument` of TimeSeries, each with
 * Periods of a `timeInterval` (UTC), a `resolution` (PT15M, PT60M) and Points of `position`
 * (1-based) and `price.amount`; `currency_Unit.name` and `price_Measure_Unit.name` (MWH) per
 * TimeSeries. When nothing matches, the API answers an `Acknowledgement_MarketDocument` whose
 * `Reason` has code 999 ("No matching data found"): for a day not published yet that is not an error.
 *
 * - Slot start = period start + (position - 1) x resolution; a 60-minute price is four quarters.
 * - Curve type A03 (variable sized blocks) leaves out a position whose price equals the one before:
 *   a missing position repeats the previous price up to the next given one or the period's end.
 *   A01 (sequential fixed size blocks) has every position; a missing one stays a gap.
 * - Since the 15-minute go-live (2025-10-01) some zones (DE-LU, AT) answer two TimeSeries for one
 *   interval, told apart by `classificationSequence_AttributeInstanceComponent.position`; position 1
 *   is the market's price, so it wins over any other.
 */

const PUBLICATION_NS = 'urn:iec62325.351:tc57wg16:451-3:publicationdocument:';
const ACKNOWLEDGEMENT_NS = 'urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:';
/** Deepest element nesting of an A44 document is 5 (document, TimeSeries, Period, Point, price.amount). */
const MAX_DEPTH = 12;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value.trim()
    : isNode(value) && typeof value['#text'] === 'string'
      ? value['#text'].trim()
      : undefined;

/** The deepest element nesting of an XML text, counted without parsing it. */
export function xmlDepth(xml: string): number {
  let depth = 0;
  let deepest = 0;
  const tags = /<(\/?)[A-Za-z_][^>]*?(\/?)>/g;
  for (let match = tags.exec(xml); match; match = tags.exec(xml)) {
    if (match[1]) depth -= 1;
    else if (!match[2]) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    }
  }
  return deepest;
}

type XmlParserModule = typeof import('fast-xml-parser');
let parserModule: Promise<XmlParserModule> | undefined;

/** fast-xml-parser, loaded when an ENTSO-E answer is first read (docs/architecture.md#prices). */
function loadParser(): Promise<XmlParserModule> {
  parserModule ??= import('fast-xml-parser');
  return parserModule;
}

function parseTree(module: XmlParserModule, xml: string): Node {
  const parser = new module.XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: false,
    isArray: (name) => name === 'TimeSeries' || name === 'Period' || name === 'Point' || name === 'Reason',
  });
  return parser.parse(xml) as Node;
}

/** Reads an ENTSO-E answer (A44 publication or acknowledgement); never throws. */
export async function parseEntsoe(xml: string): Promise<SpotAnswer> {
  if (xmlDepth(xml) > MAX_DEPTH) return refused(`ENTSO-E answer nested deeper than ${MAX_DEPTH} elements`);
  let tree: Node;
  try {
    const module = await loadParser();
    // The parser alone reads a document cut after a whole Point as a shorter day: only a
    // well-formed one (every element closed) is read, so a truncated answer stores nothing.
    const valid = module.XMLValidator.validate(xml);
    if (valid !== true) return refused(`ENTSO-E answer is not well-formed XML: ${valid.err.msg}`);
    tree = parseTree(module, xml);
  } catch (error) {
    return refused(`ENTSO-E answer is not XML: ${(error as Error).message}`);
  }
  const ack = tree['Acknowledgement_MarketDocument'];
  if (isNode(ack)) {
    if (!String(ack['@_xmlns'] ?? '').startsWith(ACKNOWLEDGEMENT_NS))
      return refused('ENTSO-E acknowledgement in an unknown namespace');
    const reasons = list(ack['Reason']).filter(isNode);
    const codes = reasons.map((reason) => text(reason['code']));
    const said = reasons.map((reason) => text(reason['text']) ?? '').join('; ');
    if (codes.includes('999')) return { kind: 'not_published', reason: said || 'no matching data (999)' };
    return refused(`ENTSO-E acknowledgement ${codes.join(', ')}: ${said}`.slice(0, 300));
  }
  const doc = tree['Publication_MarketDocument'];
  if (!isNode(doc))
    return refused('ENTSO-E answer is neither a Publication_MarketDocument nor an acknowledgement');
  if (!String(doc['@_xmlns'] ?? '').startsWith(PUBLICATION_NS))
    return refused('ENTSO-E Publication_MarketDocument in an unknown namespace');
  return readPublication(doc);
}

function readPublication(doc: Node): SpotAnswer {
  const series = list(doc['TimeSeries']).filter(isNode);
  // Classification position 1 first, so that its quarters win (addSlot keeps the first value).
  const position = (s: Node) =>
    Number(text(s['classificationSequence_AttributeInstanceComponent.position']) ?? '1');
  series.sort((a, b) => position(a) - position(b));
  const quarters = new Map<number, number>();
  let currency: string | undefined;
  let points = 0;
  for (const one of series) {
    const unit = text(one['price_Measure_Unit.name']);
    if (unit !== 'MWH') return refused(`ENTSO-E price unit ${JSON.stringify(unit)}, expected MWH`);
    const seriesCurrency = text(one['currency_Unit.name']);
    if (!seriesCurrency || !/^[A-Z]{3}$/.test(seriesCurrency))
      return refused('ENTSO-E TimeSeries without a currency');
    if (currency !== undefined && currency !== seriesCurrency)
      return refused(`ENTSO-E TimeSeries in two currencies (${currency}, ${seriesCurrency})`);
    currency = seriesCurrency;
    const curve = text(one['curveType']) ?? 'A01';
    if (curve !== 'A01' && curve !== 'A03') return refused(`ENTSO-E curve type ${curve} is not read`);
    for (const period of list(one['Period']).filter(isNode)) {
      const interval = isNode(period['timeInterval']) ? period['timeInterval'] : {};
      const start = utcTime(text(interval['start']));
      const end = utcTime(text(interval['end']));
      const minutes = resolutionMinutes(text(period['resolution']) ?? '');
      if (start === undefined || end === undefined || end <= start)
        return refused('ENTSO-E Period without a valid timeInterval');
      if (minutes === undefined)
        return refused(`ENTSO-E resolution ${text(period['resolution'])} is not read`);
      const step = minutes * 60_000;
      const count = Math.round((end - start) / step);
      if (count * step !== end - start || count * (minutes / 15) > MAX_QUARTERS)
        return refused('ENTSO-E Period interval is not a whole number of slots, or too long');
      const given = new Map<number, number>();
      for (const point of list(period['Point'])) {
        if (++points > MAX_QUARTERS) return refused(`ENTSO-E answer with more than ${MAX_QUARTERS} points`);
        if (!isNode(point)) return refused('ENTSO-E Point is not an element');
        const pos = Number(text(point['position']));
        const amount = text(point['price.amount']);
        const price = amount !== undefined && /^-?\d+(\.\d+)?$/.test(amount) ? Number(amount) : NaN;
        if (!Number.isInteger(pos) || pos < 1 || pos > count)
          return refused(`ENTSO-E Point position ${text(point['position'])} outside its Period`);
        if (!Number.isFinite(price))
          return refused(`ENTSO-E Point ${pos}: price.amount ${JSON.stringify(amount)} is not a number`);
        if (given.has(pos)) return refused(`ENTSO-E Point position ${pos} given twice`);
        given.set(pos, price);
      }
      let previous: number | undefined;
      for (let pos = 1; pos <= count; pos += 1) {
        const price = given.get(pos) ?? (curve === 'A03' ? previous : undefined);
        previous = price;
        if (price !== undefined) addSlot(quarters, start + (pos - 1) * step, minutes, price);
      }
    }
  }
  if (quarters.size === 0 || currency === undefined)
    return { kind: 'not_published', reason: 'ENTSO-E document without prices' };
  return { kind: 'prices', currency, quarters: sortedQuarters(quarters) };
}
