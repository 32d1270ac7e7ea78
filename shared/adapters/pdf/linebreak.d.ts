/** Types for `linebreak` (UAX #14), which ships none. */
declare module 'linebreak' {
  interface Break {
    /** UTF-16 offset a line may start at. */
    position: number;
    /** A mandatory break (after a newline). */
    required: boolean;
  }
  export default class LineBreaker {
    constructor(text: string);
    nextBreak(): Break | null;
  }
}
