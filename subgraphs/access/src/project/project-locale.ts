// A project's locale as GraphQL answers and takes it (the rules are in @cp/principal's locales.ts).
import type { ProjectLocale as Locale } from '@cp/graphql';
import { Field, InputType, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One locale of a project.' })
export class ProjectLocale implements Locale {
  @Field({ description: 'A BCP 47 language tag (`en`, `de-CH`).' })
  code!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The locale whose value a read in this locale answers when this one has none (and so on along the chain).',
  })
  fallback?: string | null;

  @Field(() => Boolean, {
    description: 'Whether this is the default locale: reads and writes without `locale` use it.',
  })
  default!: boolean;
}

@InputType({ description: 'One locale of a project.' })
export class ProjectLocaleInput implements Locale {
  @Field({ description: 'A BCP 47 language tag (`en`, `de-CH`).' })
  code!: string;

  @Field(() => String, { nullable: true, description: 'Another locale of the list; the default locale has none.' })
  fallback?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Exactly one locale of the list is the default.' })
  default?: boolean | null;
}
