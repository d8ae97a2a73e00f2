// The operations this example runs; `npm run codegen` turns each into a TypedDocumentNode with its result and variables.
import { graphql } from './gql';

export const Login = graphql(`
  mutation Login($email: String!, $password: String!) {
    login(input: { email: $email, password: $password }) {
      token
      expiresAt
    }
  }
`);

export const Organizations = graphql(`
  query Organizations {
    organizations {
      data {
        id
        name
      }
      pagination {
        total
      }
    }
  }
`);

export const CreateTag = graphql(`
  mutation CreateTag($organizationId: ID!, $projectId: ID!, $name: String!, $color: String) {
    createTag(organizationId: $organizationId, projectId: $projectId, input: { name: $name, color: $color }) {
      id
      name
      color
      createdAt
    }
  }
`);

export const ProjectEvents = graphql(`
  subscription ProjectEvents($projectId: ID!, $resourceType: String) {
    events(projectId: $projectId, resourceType: $resourceType) {
      id
      type
      resourceType
      resourceId
    }
  }
`);
