import { PDFDict, PDFName, PDFObject, PDFRef, PDFString, type PDFDocument, type PDFPage } from 'pdf-lib';
import type { PositionedText, StructureNode } from './report-layout-model.ts';

/**
 * The report's tagged structure (PDF 1.7, 14.7-14.8; what PDF/A-2a and PDF/UA ask for), built with
 * pdf-lib's low-level objects since pdf-lib has no tagging API:
 * - every text drawn is a marked-content sequence: the part of a structure node (`/TD <</MCID n>> BDC`),
 *   or an artifact (page furniture); every box (rules, bands) is an artifact;
 * - `finish` writes the structure elements in reading order (the layout's `StructureNode` tree),
 *   the parent tree (MCID -> element, per page), `/MarkInfo`, `/StructParents` and `/Tabs /S` on
 *   pages, a `Form` element for each annotation (the signature widget), and `/Lang` on an element
 *   whose text is in another language than its parent's (`languageOf`).
 */
export class TaggedStructure {
  private readonly pages: PageMarks[] = [];
  private readonly content = new Map<StructureNode, NodeContent>();

  constructor(private readonly doc: PDFDocument) {}

  /** The marked content of a page, numbered from 0 in the order `begin` is called. */
  page(pdfPage: PDFPage): PageMarks {
    const marks = new PageMarks(pdfPage, (node) => {
      let content = this.content.get(node);
      if (!content) {
        content = { marks: [], text: [] };
        this.content.set(node, content);
      }
      return content;
    });
    this.pages.push(marks);
    return marks;
  }

  /**
   * Writes the structure of `root` and marks the document tagged. Called once every page is painted
   * and every annotation added: annotations are tagged too.
   */
  finish(root: StructureNode, documentLanguage: string): void {
    const { context, catalog } = this.doc;
    const rootRef = context.nextRef();
    const mcidParents = this.pages.map((page) => page.parents.map((): PDFRef | undefined => undefined));
    const annotations = this.pages.flatMap((page) =>
      (page.pdfPage.node.Annots()?.asArray() ?? []).flatMap((ref) =>
        ref instanceof PDFRef ? [{ ref, page, form: context.nextRef() }] : [],
      ),
    );

    const write = (
      node: StructureNode,
      parentRef: PDFRef,
      inherited: string,
      extraKids: PDFRef[],
    ): PDFRef | undefined => {
      if (!this.hasContent(node)) return undefined;
      const ref = context.nextRef();
      const content = this.content.get(node);
      const language = content ? (languageOf(content.text.join(' '), documentLanguage) ?? inherited) : inherited;
      const kids: string[] = [];
      const firstPage = content?.marks[0]?.page;
      for (const mark of content?.marks ?? []) {
        mcidParents[this.pages.indexOf(mark.page)]![mark.mcid] = ref;
        kids.push(
          mark.page === firstPage
            ? String(mark.mcid)
            : `<</Type/MCR/Pg ${syntaxOf(mark.page.pdfPage.ref)}/MCID ${mark.mcid}>>`,
        );
      }
      for (const child of node.children) {
        const childRef = write(child, ref, language, []);
        if (childRef) kids.push(String(childRef));
      }
      kids.push(...extraKids.map(String));
      const page = firstPage ? `/Pg ${syntaxOf(firstPage.pdfPage.ref)}` : '';
      const lang = language === inherited ? '' : `/Lang(${language})`;
      const attributes = node.role === 'TH' ? '/A<</O/Table/Scope/Row>>' : '';
      context.assign(
        ref,
        new PdfSyntax(`<</S/${node.role}/P ${syntaxOf(parentRef)}/K[${kids.join(' ')}]${page}${lang}${attributes}>>`),
      );
      return ref;
    };
    const documentRef = write(
      root,
      rootRef,
      documentLanguage,
      annotations.map(({ form }) => form),
    );
    if (!documentRef) throw new Error('the report has no content to tag');

    const parentTree: string[] = this.pages.map(
      (page, index) => `${index}[${mcidParents[index]!.map((ref) => String(ref ?? 'null')).join(' ')}]`,
    );
    this.pages.forEach((page, index) => {
      page.pdfPage.node.set(PDFName.of('StructParents'), context.obj(index));
      page.pdfPage.node.set(PDFName.of('Tabs'), PDFName.of('S'));
    });
    annotations.forEach(({ ref, page, form }, index) => {
      const key = this.pages.length + index;
      const pageRef = String(page.pdfPage.ref);
      context.assign(
        form,
        new PdfSyntax(
          `<</S/Form/P ${syntaxOf(documentRef)}/Pg ${pageRef}/K<</Type/OBJR/Obj ${syntaxOf(ref)}/Pg ${pageRef}>>>>`,
        ),
      );
      const annotation = context.lookup(ref, PDFDict);
      annotation.set(PDFName.of('StructParent'), context.obj(key));
      if (!annotation.has(PDFName.of('TU')) && annotation.has(PDFName.of('FT'))) {
        annotation.set(PDFName.of('TU'), PDFString.of('Digital signature of this report'));
      }
      parentTree.push(`${key} ${syntaxOf(form)}`);
    });

    const nextKey = this.pages.length + annotations.length;
    const parentTreeRef = context.register(new PdfSyntax(`<</Nums[${parentTree.join(' ')}]>>`));
    context.assign(
      rootRef,
      new PdfSyntax(
        `<</Type/StructTreeRoot/K ${syntaxOf(documentRef)}/ParentTree ${syntaxOf(parentTreeRef)}/ParentTreeNextKey ${nextKey}>>`,
      ),
    );
    catalog.set(PDFName.of('StructTreeRoot'), rootRef);
    catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
    catalog.set(PDFName.of('Lang'), PDFString.of(documentLanguage));
    catalog.getOrCreateViewerPreferences().setDisplayDocTitle(true);
  }

  private hasContent(node: StructureNode): boolean {
    return (
      node.role === 'TH' ||
      node.role === 'TD' ||
      this.content.has(node) ||
      node.children.some((child) => this.hasContent(child))
    );
  }
}

interface NodeContent {
  marks: Array<{ page: PageMarks; mcid: number }>;
  text: string[];
}

/** Marked-content operators of one page. */
export class PageMarks {
  /** The node of each MCID on this page. */
  readonly parents: StructureNode[] = [];

  constructor(
    readonly pdfPage: PDFPage,
    private readonly contentOf: (node: StructureNode) => NodeContent,
  ) {}

  /** Opens the marked content of one positioned text: its node's next part, or furniture. Closed by `end`. */
  beginText(text: PositionedText): string {
    const { node } = text;
    if (!node) {
      const subtype = { header: ' /Subtype /Header', footer: ' /Subtype /Footer', watermark: ' /Subtype /Watermark' }[
        text.role as string
      ];
      return `/Artifact <</Type /Pagination${subtype ?? ''}>> BDC`;
    }
    const mcid = this.parents.length;
    this.parents.push(node);
    const content = this.contentOf(node);
    content.marks.push({ page: this, mcid });
    content.text.push(text.text);
    return `/${node.role} <</MCID ${mcid}>> BDC`;
  }

  /** Opens the artifact the page's boxes (rules, bands, bars) are drawn in. Closed by `end`. */
  beginLayoutArtifact(): string {
    return '/Artifact <</Type /Layout>> BDC';
  }

  end(): string {
    return 'EMC';
  }
}

/** Scripts and the language a screen reader should read them in: the language most written in that script. */
const SCRIPT_LANGUAGES: Array<[RegExp, string]> = [
  [/\p{Script=Arabic}/u, 'ar'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Devanagari}/u, 'hi'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Hangul}/u, 'ko'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Cyrillic}/u, 'ru'],
];
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const LETTER = /\p{L}/u;
const LATIN = /\p{Script=Latin}/u;
/** Printable ASCII: report text has no control characters (`Typesetter.printable`). */
const ASCII = /^[ -~]*$/u;
const ASCII_LETTER = /[A-Za-z]/u;

/**
 * The language of a piece of report text, from its script (the record stores no language): the
 * script of its first letter, Japanese wherever there is kana (Japanese mixes kanji and kana), the
 * document's language for Latin letters. Undefined without letters (dates, numbers, "—"), or for a
 * script with no entry: the text is read in its parent's language.
 */
export function languageOf(text: string, documentLanguage: string): string | undefined {
  if (ASCII.test(text)) return ASCII_LETTER.test(text) ? documentLanguage : undefined;
  if (KANA.test(text)) return 'ja';
  const letter = LETTER.exec(text)?.[0];
  if (letter === undefined) return undefined;
  if (LATIN.test(letter)) return documentLanguage;
  return SCRIPT_LANGUAGES.find(([script]) => script.test(letter))?.[1];
}

/**
 * A PDF object given as its syntax (ASCII only): the structure is some hundreds of small
 * dictionaries, and building and writing them as pdf-lib's `PDFDict`s (each key and number
 * converted, sized and written through generic code) was most of what tagging cost a render.
 * Unlike `PDFInvalidObject`, the writer puts it in an object stream like any dictionary.
 */
class PdfSyntax extends PDFObject {
  constructor(private readonly syntax: string) {
    super();
  }

  override clone(): PdfSyntax {
    return new PdfSyntax(this.syntax);
  }

  override toString(): string {
    return this.syntax;
  }

  override sizeInBytes(): number {
    return this.syntax.length;
  }

  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    for (let index = 0; index < this.syntax.length; index++) buffer[offset + index] = this.syntax.charCodeAt(index);
    return this.syntax.length;
  }
}

/** A reference as PDF writes it (`12 0 R`). */
function syntaxOf(ref: PDFRef): string {
  return ref.toString();
}
