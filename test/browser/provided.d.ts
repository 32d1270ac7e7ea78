/** Values test/browser/global-setup.ts provides besides the integration tier's (see ../integration/provided.d.ts). */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The seeded demo organization. */
    demoOrgId: string;
  }
}

export {};
