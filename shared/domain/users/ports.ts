/** Removes user records; only the erasure (DELETE /v1/users/{id}) holds one. */
export interface UserEraser {
  /** Deletes the organization's user with this id; an absent one is fine (a parallel erasure took it). */
  erase(orgId: string, userId: string): Promise<void>;
}
