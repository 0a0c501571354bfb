import { Logger } from "./logger";

export interface Project {
  id: string;
  name: string;
  archived: boolean;
  updatedAt: string;
}

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  retries?: number;
}

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
    this.name = "ApiError";
  }
}

export class ProjectClient {
  private readonly retries: number;

  constructor(private options: ClientOptions, private log: Logger) {
    this.retries = options.retries ?? 2;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.options.token) {
      headers["Authorization"] = `Bearer ${this.options.token}`;
    }
    return headers;
  }

  async list(includeArchived = false): Promise<Project[]> {
    const url = `${this.options.baseUrl}/projects?archived=${includeArchived}`;
    const res = await this.request(url);
    const body = await res.json();
    return body.projects as Project[];
  }

  async get(id: string): Promise<Project | undefined> {
    const res = await this.request(`${this.options.baseUrl}/projects/${id}`);
    if (res.status === 404) {
      return undefined;
    }
    return (await res.json()) as Project;
  }

  private async request(url: string): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      try {
        const res = await fetch(url, { headers: this.headers() });
        if (res.status >= 500) {
          throw new ApiError(res.status, `server error on ${url}`);
        }
        return res;
      } catch (err) {
        lastError = err;
        this.log.warn(`attempt ${attempt + 1} failed: ${String(err)}`);
      }
    }
    throw lastError;
  }
}

export function sortByUpdated(projects: Project[]): Project[] {
  return [...projects].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}
