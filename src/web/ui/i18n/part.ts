/**
 * A translated part of the catalogue: exactly the keys of its English part (a missing key is a
 * compile error, and so is one English does not have: the object literal is checked for excess keys).
 */
export type Translation<English> = { readonly [Key in keyof English]: string };
