/**
 * A record type without the `[key: string]: unknown` that `z.looseObject` adds: files may carry extra keys
 * (spec 000 keeps them on read and write), but a record built in code is checked field by field, so a typo
 * such as `m.coverag` fails to compile. Pure maps (no named field, like `metadata`) keep their index signature.
 */
export type KnownFields<T> = T extends readonly (infer Item)[]
  ? KnownFields<Item>[]
  : T extends object
    ? keyof NamedKeys<T> extends never
      ? T
      : { [K in keyof NamedKeys<T>]: KnownFields<NamedKeys<T>[K]> }
    : T;

type NamedKeys<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};
