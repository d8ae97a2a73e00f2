// Runs a query typed from one project's own schema (its published content types) with an API key, and prints it.
// Expects the project to have published `Author {fullName}` and `Article {title, rating, author → Author}` types.
// CP_URL (default http://127.0.0.1:4000), CP_API_KEY, CP_ORGANIZATION / CP_PROJECT (default `default`).
import { ContentPlatformClient } from '../../src/client';
import { graphql } from './gql';

const TopArticles = graphql(`
  query TopArticles($min: Int!) {
    articleCollection(where: { rating: { gte: $min } }, order: [rating_DESC], limit: 10) {
      total
      items {
        sys {
          id
        }
        title
        rating
        author {
          fullName
        }
      }
    }
  }
`);

async function main() {
  const url = (process.env.CP_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, '');
  const project = `/api/v1/organizations/${process.env.CP_ORGANIZATION ?? 'default'}/projects/${process.env.CP_PROJECT ?? 'default'}`;
  // The project's typed endpoint is `<project>/graphql`: the client posts to `${url}/graphql`.
  const client = new ContentPlatformClient(`${url}${project}`, { 'x-api-key': process.env.CP_API_KEY ?? '' });
  // `articleCollection.items` is Array<{ title?: string | null; rating?: number | null; author?: {…} | null; … }>.
  const { articleCollection } = await client.request(TopArticles, { min: 2 });
  const articles = articleCollection.items.map((a) => ({
    title: a.title ?? '',
    rating: a.rating ?? 0,
    author: a.author?.fullName ?? null,
  }));
  console.log(JSON.stringify({ total: articleCollection.total, articles }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
