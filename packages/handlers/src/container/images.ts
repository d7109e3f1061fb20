// Image references and the operator's allow-list (BELFRY_CONTAINER_IMAGES). A reference is
// checked against Docker's grammar (distribution/reference) before it is stored, and allowed
// only when the reference AS WRITTEN matches one of the operator's patterns, where `*` matches
// any characters: `registry.example.com/jobs/*` allows every image under that path, and no
// normalisation (docker.io/library/...) lets a reference slip past a pattern. Pure.

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

export const MAX_IMAGE_LENGTH = 512;
/** Docker's own limit on the name part. */
const MAX_NAME_LENGTH = 255;

/** Null for a well-formed image reference (`name[:tag][@digest]`), else why it is not. */
export function imageReferenceProblem(reference: string): string | null {
  if (reference.length === 0) return 'is required';
  if (reference.length > MAX_IMAGE_LENGTH) return `must be at most ${MAX_IMAGE_LENGTH} characters`;
  const match = REFERENCE.exec(reference);
  if (!match) {
    return 'is not a valid image reference (name[:tag][@digest], lowercase repository path, e.g. registry.example.com/jobs/report:1.4)';
  }
  if ((match[1] ?? '').length > MAX_NAME_LENGTH) return `name must be at most ${MAX_NAME_LENGTH} characters`;
  return null;
}

/** The operator's image patterns; an empty list allows nothing. */
export class ImageAllowList {
  private readonly patterns: RegExp[];

  constructor(readonly sources: readonly string[]) {
    this.patterns = sources.map(
      (p) =>
        new RegExp(
          `^${p
            .split('*')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ),
    );
  }

  /** From BELFRY_CONTAINER_IMAGES: comma-separated patterns; unset or blank → nothing allowed. */
  static parse(value: string | undefined | null): ImageAllowList {
    const patterns = (value ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    return new ImageAllowList(patterns);
  }

  get empty(): boolean {
    return this.patterns.length === 0;
  }

  allows(reference: string): boolean {
    return this.patterns.some((p) => p.test(reference));
  }

  /** Null when the image may run, else why not (for a 422 or a refused attempt). */
  refusal(reference: string): string | null {
    if (this.empty) return 'container targets are not enabled on this deployment (BELFRY_CONTAINER_IMAGES is not set)';
    if (!this.allows(reference)) return `image '${reference}' is not allowed here (BELFRY_CONTAINER_IMAGES)`;
    return null;
  }
}
