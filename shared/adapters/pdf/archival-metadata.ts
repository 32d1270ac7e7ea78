import { createHash } from 'node:crypto';
import { PDFHexString, PDFName, PDFString, type PDFDocument } from 'pdf-lib';
import { SRGB_ICC_PROFILE_BASE64 } from './srgb-icc-profile.ts';

/** What a report says about itself: written to the Info dictionary and, the same values, to the XMP metadata. */
export interface DocumentDescription {
  title: string;
  author: string;
  subject: string;
  keywords: string[];
  creator: string;
  producer: string;
  /** BCP 47 tag of the document's language. */
  language: string;
  /** Creation and modification date alike: a report is written once. */
  date: Date;
  /** Identifies the document for its trailer `/ID`: the same input gives the same ID. */
  identity: string;
  /**
   * The PDF/A-2 conformance level claimed (`pdfaid`); undefined when the file is not PDF/A (it
   * shows a missing glyph), so it claims no PDF/A identification at all.
   */
  pdfaConformance: 'A' | undefined;
}

/**
 * PDF/A-2 (ISO 19005-2) level A, the document-level part: the Info dictionary and an XMP metadata
 * stream with the same title, author, subject, keywords, tools and dates (6.6.2.3), `pdfaid:part`
 * 2 and `pdfaid:conformance` A unless `pdfaConformance` says the file is not PDF/A (the tagged structure, tagged-structure.ts, is what level A adds);
 * an sRGB output intent with its ICC profile, since the report paints in DeviceRGB (6.2.4.3); a
 * trailer `/ID` (6.1.3), derived from `identity` so a render stays deterministic.
 */
export function setArchivalMetadata(doc: PDFDocument, description: DocumentDescription): void {
  const { context, catalog } = doc;
  doc.setTitle(description.title);
  doc.setAuthor(description.author);
  doc.setSubject(description.subject);
  doc.setKeywords(description.keywords);
  doc.setCreator(description.creator);
  doc.setProducer(description.producer);
  doc.setCreationDate(description.date);
  doc.setModificationDate(description.date);

  const metadata = context.stream(new TextEncoder().encode(xmpPacket(description)), {
    Type: 'Metadata',
    Subtype: 'XML',
  });
  catalog.set(PDFName.of('Metadata'), context.register(metadata));

  // Uncompressed: 456 bytes, and each deflate costs its state's set-up (about a millisecond in pako).
  const profile = context.register(context.stream(Buffer.from(SRGB_ICC_PROFILE_BASE64, 'base64'), { N: 3 }));
  catalog.set(
    PDFName.of('OutputIntents'),
    context.obj([
      {
        Type: 'OutputIntent',
        S: 'GTS_PDFA1',
        OutputConditionIdentifier: PDFString.of('sRGB IEC61966-2.1'),
        Info: PDFString.of('sRGB IEC61966-2.1'),
        DestOutputProfile: profile,
      },
    ]),
  );

  const id = PDFHexString.of(createHash('sha256').update(description.identity).digest('hex').slice(0, 32));
  context.trailerInfo.ID = context.obj([id, id]);
}

/** The XMP packet (ISO 16684-1): Dublin Core, XMP basic, Adobe PDF and the PDF/A identification schema. */
function xmpPacket(description: DocumentDescription): string {
  const date = description.date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const text = escapeXml;
  return `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about=""
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
 xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${text(description.title)}</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>${text(description.author)}</rdf:li></rdf:Seq></dc:creator>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${text(description.subject)}</rdf:li></rdf:Alt></dc:description>
<dc:language><rdf:Bag><rdf:li>${text(description.language)}</rdf:li></rdf:Bag></dc:language>
<pdf:Keywords>${text(description.keywords.join(' '))}</pdf:Keywords>
<pdf:Producer>${text(description.producer)}</pdf:Producer>
<xmp:CreatorTool>${text(description.creator)}</xmp:CreatorTool>
<xmp:CreateDate>${date}</xmp:CreateDate>
<xmp:ModifyDate>${date}</xmp:ModifyDate>
<xmp:MetadataDate>${date}</xmp:MetadataDate>
${pdfaIdentification(description.pdfaConformance)}</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="r"?>`;
}

const pdfaIdentification = (conformance: 'A' | undefined): string =>
  conformance ? `<pdfaid:part>2</pdfaid:part>\n<pdfaid:conformance>${conformance}</pdfaid:conformance>\n` : '';

/** Text as XML character data; characters XML 1.0 cannot carry at all are dropped. */
function escapeXml(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
