// Generated from api/openapi.yaml by `npm run gen:api`. Do not edit.

export interface paths {
    "/cfg/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List registered applications
         * @description Ordered by name, then id. An application matches when it has every given tag; `tags=a&tags=b` and `tags=a,b` are the same.
         */
        get: operations["listApps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cfg/apps/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Application details */
        get: operations["getApp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cfg/apps/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Versions of an application, newest first (SemVer precedence) */
        get: operations["listVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cfg/apps/{id}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Version details (the version text matches exactly) */
        get: operations["getVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cfg/apps/{id}/versions/{version}/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Profiles that apply to an application and version; either may be `*` */
        get: operations["listProfiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cfg/apps/{id}/versions/{version}/profiles/{profile}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Profile details; 404 when the profile does not apply to the application and version */
        get: operations["getProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's sessions, oldest first (every session for `admin`) - extension
         * @description `state=live` (the default): sessions pending, ready or failed within the last 10 minutes, oldest first. `state=ended` (CONTRACT §22): sessions that ended or failed, kept at least 30 days, newest first, each with `ended_at`, `duration_s`, `end_cause` and, in `status.message`, why it ended in words. An admin sees everyone's and may name one person with `user`; anyone else may name only themselves.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create a streaming session
         * @description Answers 200 with routes when the session is ready within a short wait, otherwise 202 without routes;
         *     poll `GET /stream/{session_id}` until it answers 200. Unknown top-level fields are ignored.
         */
        post: operations["createSession"];
        /** End a session named in the body - extension */
        delete: operations["deleteSessionByBody"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a session */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /** End a session - extension */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a viewer ticket - extension
         * @description A ticket lets a viewer connect to the session's application (`Authorization: Bearer` on its `POST /whep`). A `control` ticket serves one connection and lasts at most 120 s, whatever `ttl_s` asks; a `watch` ticket may last as long as the session, serves any number of connections, and gives video only, until the sharing is stopped (`DELETE /stream/{session_id}/tickets`). The session's owner or an admin only.
         */
        post: operations["createTicket"];
        /**
         * Stop sharing a session - extension
         * @description Every `watch` ticket issued so far stops working, and the application drops the viewers they made; tickets issued afterwards work. Control tickets are not concerned: each serves one connection. A session not ready yet is told once it is. The session's owner or an admin only.
         */
        delete: operations["stopSharing"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Let a session run longer - extension
         * @description A ready session ends at its lifetime (`ends_at`): its profile's initial lifetime (`settings.lifetime_min`) counted from when its application started, plus what it was extended by. Extending moves `ends_at` `minutes` later, cut at `latest_end_at`: the start plus the profile's maximum lifetime (`settings.max_lifetime_min`), which nothing passes. A session already there, or one of a profile without an initial lifetime (its sessions run to their maximum from the start), answers 422 at `minutes` in words, and nothing changes. Nothing else of the session changes either (its idle time, its viewers, its tickets). A session that runs as a Slurm job has its job's time limit raised first; a cluster that does not allow it answers 409 in words. The new end is saved before the answer, and survives a restart of the service. The session's owner or an admin only.
         */
        post: operations["extendSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/whep": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connect a viewer through the service (WHEP) - extension
         * @description The session's WHEP endpoint on the service's own origin (CONTRACT §21), for browsers that cannot reach the node the session runs on. The body is the viewer's SDP offer; `Authorization: Bearer` carries a viewer ticket (`POST /stream/{session_id}/tickets`), which the application checks as on its own endpoint, and `?mode=watch` asks for less than the ticket grants. The answer is the application's, with one more candidate: the service's media door, which the TURN relays of the `Link` headers (`rel="ice-server"`, RFC 9725 §4.4) reach. Its `Location` is the viewer's resource on this origin.
         */
        post: operations["doorOffer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/whep/{viewer_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Disconnect a viewer connected through the service - extension
         * @description Ends the viewer this resource names at the application, with the ticket that made it (`Authorization: Bearer`).
         */
        delete: operations["doorLeave"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/still": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A recent still of the session's picture - extension
         * @description A small picture (320 pixels wide) of what the session's application shows, renewed every few seconds while it runs: a PNG from Streamgate's applications, a JPEG from others that make one. 404 until the application has made one, and for applications that make none. The session's owner or an admin only.
         */
        get: operations["getSessionStill"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session's files - extension
         * @description Each session has a folder of its own, which its program sees as `~/Files`, kept where the program runs (this machine or its Slurm node), limited to the profile's `settings.files_mb` (default 512) and gone with the session. This lists it (hidden uploads still being written are left out), or with `?format=zip` sends the whole folder, its subfolders included, as one zip archive. Symbolic links a program made are listed as files of size 0 and never followed. The session's owner or an admin only (`Authorization: Bearer` with an API token), or the holder of a control ticket of this session (the same header with the ticket); a watch ticket never. 409 while the session is still starting.
         */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stream/{session_id}/files/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One file of the session's folder - extension
         * @description The file's bytes as they are now, streamed, with its length and `Content-Disposition: attachment`. A name that is a folder, a symbolic link or anything but a regular file answers 404. Who may: as for `GET /stream/{session_id}/files`.
         */
        get: operations["downloadFile"];
        /**
         * Put a file into the session's folder - extension
         * @description The body (any type, `Content-Length` required) becomes the file `name`, replacing one of that name. It is streamed to disk as it comes, never held whole in memory, under a hidden name, and takes its own name only once complete: a failed or cut upload leaves nothing, and a program never sees half a file. A name that is not allowed (`.`, `..`, `/`, `\`, control characters, over 255 bytes of UTF-8) is 422 in words; a file larger than the whole folder is 413; one that does not fit in what is left is 507; in each case nothing changes. Who may: as for `GET /stream/{session_id}/files`.
         */
        put: operations["uploadFile"];
        post?: never;
        /**
         * Remove a file from the session's folder - extension
         * @description Removes the file (or the symbolic link) `name`; a folder is 409. Who may: as for `GET /stream/{session_id}/files`.
         */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/capacity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What holds the GPUs, and what waits for them - extension
         * @description Sessions holding a GPU (starting, ready or ending), warm applications kept started ahead of demand (`settings.warm` of a profile), and the queue, in all and per profile. Admins only.
         */
        get: operations["getCapacity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log, newest first - extension
         * @description What people did and what happened to their sessions (CONTRACT §22): sign-in failures, launches, admin Tries, ends (and by whom), sessions that ended by themselves, tickets (their scope, never their value), stops of sharing and extensions, from `<data dir>/audit.jsonl` and its rotated files. Filters add up. With `Accept: text/csv` the same events come as CSV (`time,user,action,session,detail`, the detail as JSON), for a download. Admins only.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Application or profile identifier. */
        Identifier: string;
        IdentifierOrWildcard: string;
        /** @description SemVer 2.0.0, MAJOR.MINOR.PATCH[-PRE][+BUILD]. */
        SemVer: string;
        /** @description A lower-case UUID v4. */
        SessionId: string;
        Application: {
            id: components["schemas"]["Identifier"];
            name: string;
            description: string;
            tags: string[];
            /**
             * Format: uri-reference
             * @description The application's icon (extension; other deployments may omit it): an absolute http(s) URL, or a path
             *     on this API's host, where the service serves an image that sits beside its catalog file
             *     (`/catalog-icons/...`). Clients resolve it against the catalog API's address.
             */
            icon?: string;
            /**
             * Format: uri-reference
             * @description A picture of the application running (extension; other deployments may omit it), 16:9, for the top of
             *     its card and its page: an absolute http(s) URL, or a path on this API's host, where the service serves
             *     an image that sits beside its catalog file (`/catalog-pictures/...`). Clients resolve it as `icon`.
             */
            picture?: string;
        };
        ApplicationList: {
            count: number;
            items: components["schemas"]["Application"][];
        };
        VersionItem: {
            version: string;
            /** @description What kinds of file a person's own file may be opened with (extension): file name extensions, lower case, without the dot (`stl`, `pdf`). The portal offers to open a file of the session's folder whose name ends so; the program restarts with it. Absent: the version opens none. */
            opens?: string[];
            /** @description The launch arguments this version declares (extension, CONTRACT §20): the portal builds its fields from them and POST /stream checks `arguments` against them. An empty list: the version takes none. Absent: nothing is declared (other deployments), and `arguments` pass unchecked. */
            arguments?: components["schemas"]["ArgumentDeclaration"][];
        };
        ArgumentDeclaration: {
            /** @description The key in the POST /stream `arguments`. */
            name: string;
            /** @description What a person reads beside the field. */
            label: string;
            /** @enum {string} */
            type: "string" | "number" | "boolean" | "choice";
            /** @description The values an argument of type `choice` takes. */
            choices?: string[];
            /** @description The value a launch without this argument gets; of the argument's type. */
            default?: string | number | boolean;
            description?: string;
            required: boolean;
        };
        VersionList: {
            count: number;
            items: components["schemas"]["VersionItem"][];
        };
        VersionDetail: {
            version: string;
            description: string;
            /** @description What kinds of file a person's own file may be opened with (extension): file name extensions, lower case, without the dot (`stl`, `pdf`). The portal offers to open a file of the session's folder whose name ends so; the program restarts with it. Absent: the version opens none. */
            opens?: string[];
        };
        Profile: {
            id: components["schemas"]["Identifier"];
            name: string;
            description: string;
        };
        ProfileList: {
            count: number;
            items: components["schemas"]["Profile"][];
        };
        /** @description Custom arguments passed to the application: at most 8 levels deep, 256 keys in all and 16 KiB as JSON (past that, a 422 `value_error` at the field). */
        StreamArguments: {
            /** @description URI of the USD stage to load. */
            usd_stage_uri?: string;
        } & {
            [key: string]: unknown;
        };
        StreamRequest: {
            id: components["schemas"]["Identifier"];
            profile: components["schemas"]["Identifier"];
            /**
             * @description A SemVer version or `latest` (the default).
             * @default latest
             */
            version: components["schemas"]["SemVer"] | "latest";
            arguments?: components["schemas"]["StreamArguments"];
            /**
             * @description `try`: an admin's Try of an application (the admin page), recorded as such in the audit log; the session is the same (extension).
             * @enum {string}
             */
            purpose?: "launch" | "try";
        };
        TicketRequest: {
            /**
             * @default control
             * @enum {string}
             */
            scope: "control" | "watch";
            /** @description Seconds the ticket lasts; never past the session's lifetime, and never more than 120 for a `control` ticket. */
            ttl_s?: number;
        };
        ExtendRequest: {
            /**
             * @description How much longer the session may run; more than its profile's maximum lifetime leaves is cut there.
             * @default 30
             */
            minutes: number;
        };
        Capacity: {
            /** @description Sessions that may hold a GPU at once; on a cluster, the GPUs of its nodes that are up, as its scheduler counts them. */
            capacity: number;
            /** @description People's sessions holding a GPU. */
            running: number;
            /** @description Warm applications holding a GPU. */
            warm: number;
            /** @description Sessions waiting for a GPU. */
            queued: number;
            by_profile: {
                profile: components["schemas"]["Identifier"];
                running: number;
                queued: number;
                warm: number;
                /** @description Warm applications the catalog asks for, over every version the profile applies to. */
                warm_target: number;
            }[];
            cluster?: components["schemas"]["Cluster"];
            door?: components["schemas"]["Door"];
        };
        /** @description How viewers get in when they cannot reach a session (CONTRACT §21): signaling through the service, and the TURN relay with what it carries now (extension). */
        Door: {
            /** @enum {string} */
            signaling: "auto" | "door" | "direct";
            /**
             * @description The service's own coturn, the site's TURN server, or none.
             * @enum {string}
             */
            relay: "embedded" | "site" | "none";
            /** @description Why there is no relay */
            relay_problem?: string;
            /** @description Viewers the media door lets through. */
            relayed_viewers: number;
            /** @description Relayed connections open now. */
            relayed_flows: number;
            /** @description Bytes relayed to sessions since the start. */
            relay_bytes_in: number;
            /** @description Bytes relayed to viewers since the start. */
            relay_bytes_out: number;
            /** @description WHEP offers answered through the service since the start. */
            offers: number;
        };
        /** @description Where sessions run when they run on a cluster (STREAMGATE_RUNNER=slurm), as its scheduler counts it - extension. */
        Cluster: {
            /** @enum {string} */
            scheduler: "slurm";
            partitions: {
                name: string;
                /** @description GPUs of its nodes that are up. */
                gpus: number;
                gpus_in_use: number;
                nodes: number;
                /** @description Its nodes that are down, drained or not responding. */
                nodes_down: string[];
            }[];
            nodes: {
                name: string;
                address: string;
                /** @description As the scheduler says it: IDLE, MIXED, ALLOCATED, DOWN, DRAINED ... */
                state: string;
                partitions: string[];
                gpus: number;
                gpus_in_use: number;
            }[];
            /** @description For each profile of the catalog, whether the cluster has nodes up that can run it. */
            profiles: {
                profile: components["schemas"]["Identifier"];
                runnable: boolean;
                /** @description Why, in words: "2 nodes of partition gpu have 1 GPU each". */
                message: string;
            }[];
        };
        Ticket: {
            ticket: string;
            /** @enum {string} */
            scope: "control" | "watch";
            /** Format: date-time */
            expires_at: string;
            /** @description TURN relays for this ticket's viewer (CONTRACT §21), in the shape of WebRTC's `RTCIceServer`, with time-limited credentials; absent where the service has no relay. */
            ice_servers?: components["schemas"]["IceServer"][];
        };
        IceServer: {
            urls: string[];
            username: string;
            credential: string;
        };
        DeleteRequest: {
            id: components["schemas"]["SessionId"];
        };
        Route: {
            /** @description signaling or media */
            description: string;
            destination_port: number;
            /** @description TCP (signaling) or UDP (media) */
            protocol: string;
            source_port: number;
        };
        SessionStatus: {
            /**
             * @description `failed` appears only in `GET /stream` lists (a failed session's own URL answers 410 with the reason
             *     for a while, then 404); `GET /stream/{session_id}` and `POST /stream` answer pending or ready.
             *     `ended` appears only in `GET /stream?state=ended`, where `message` says why the session ended.
             * @enum {string}
             */
            condition: "pending" | "ready" | "failed" | "ended";
            message: string;
            /** @description true when ready. */
            status: boolean;
        };
        Session: {
            id: components["schemas"]["SessionId"];
            /** @description Map from host address to its routes; present when ready. */
            routes?: {
                [key: string]: components["schemas"]["Route"][];
            };
            status: components["schemas"]["SessionStatus"];
            /** @description Id of the application (extension; other deployments may omit it). */
            app?: string;
            /** @description The version that runs, `latest` resolved (extension). */
            version?: string;
            /** @description Id of the profile (extension). */
            profile?: string;
            /**
             * Format: date-time
             * @description When the session was requested, RFC 3339 (extension).
             */
            created_at?: string;
            /** @description Who started the session (extension). */
            user?: string;
            /** @description The arguments the application was started with, declared defaults filled in (extension, CONTRACT §20). */
            arguments?: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description When it ended or failed (`state=ended` lists only, extension).
             */
            ended_at?: string;
            /** @description Seconds from `created_at` to `ended_at` (`state=ended` lists only, extension). */
            duration_s?: number;
            /**
             * @description Why it ended (`state=ended` lists only, extension): ended by a person (`ended_by`), no viewer for its idle time, its maximum lifetime reached, its application quit, it failed, the service stopped, or the service could not save it. `status.message` says it in words.
             * @enum {string}
             */
            end_cause?: "deleted" | "idle" | "lifetime" | "exited" | "failed" | "shutdown" | "unsaved";
            /** @description Who ended it, when a person did (`end_cause` `deleted`, extension). */
            ended_by?: string;
            /**
             * Format: date-time
             * @description When a ready session will be ended at its lifetime unless it is extended (`POST /stream/{session_id}/extend`), RFC 3339 (extension).
             */
            ends_at?: string;
            /**
             * Format: date-time
             * @description The latest `ends_at` extending can reach: its start plus its profile's maximum lifetime; equal to `ends_at` when there is nothing left to extend (ready sessions, extension).
             */
            latest_end_at?: string;
            /**
             * Format: date-time
             * @description When a ready session that has no viewer connected will be ended for it (its profile's idle time), unless a viewer connects first; absent while one is connected, and for applications that do not count their viewers (extension).
             */
            idle_ends_at?: string;
        };
        SessionList: {
            offset: number;
            limit: number;
            /** @description Number of sessions the caller has in all. */
            count: number;
            items: components["schemas"]["Session"][];
        };
        /**
         * @description `end`: a person ended a session (`user`; `detail.owner` when it was someone else's); `session-ended`: it ended by itself (`detail.cause`: failed, idle, lifetime, exited, shutdown, unsaved), under its owner; `extend`: a person let a session run longer (`detail.minutes`, `detail.ends_at`); `file-upload`, `file-download`, `file-delete`: a person put a file into a session's folder (`detail.name`, `detail.bytes`), took one or the whole folder (`detail.name`, `zip` for the folder) or removed one (`detail.name`); `detail.via` is `control ticket` when a viewer's ticket, not a token, allowed it.
         * @enum {string}
         */
        AuditAction: "sign-in-failed" | "launch" | "admin-try" | "end" | "session-ended" | "ticket" | "stop-sharing" | "extend" | "file-upload" | "file-download" | "file-delete";
        AuditEvent: {
            /** Format: date-time */
            time: string;
            /** @description Who did it; for `sign-in-failed` */
            user: string;
            action: components["schemas"]["AuditAction"];
            /** @description The id of the session concerned */
            session: string | null;
            /** @description What else is worth knowing (application, version, profile, scope, cause, owner ...): short texts, numbers and true/false, never a secret. */
            detail: {
                [key: string]: string | number | boolean;
            };
        };
        AuditLog: {
            /** @description Events in `items`. */
            count: number;
            /** @description More events match, older than the last one here; narrow the filters or raise `limit`. */
            truncated: boolean;
            items: components["schemas"]["AuditEvent"][];
        };
        FileEntry: {
            name: string;
            /** @description Bytes; 0 for folders and symbolic links. */
            size: number;
            /** Format: date-time */
            modified: string;
            /** @enum {string} */
            kind: "file" | "folder";
        };
        FilesListing: {
            /** @description The folder's size limit (`settings.files_mb`). */
            limit_bytes: number;
            /** @description What its files take now. */
            used_bytes: number;
            items: components["schemas"]["FileEntry"][];
        };
        HTTPError: {
            /** @description One sentence a person can act on. */
            detail: string;
        };
        ValidationErrorItem: {
            loc: (string | number)[];
            msg: string;
            type: string;
        };
        HTTPValidationError: {
            detail: components["schemas"]["ValidationErrorItem"][];
        };
    };
    responses: {
        /** @description The session is not running yet (still starting, or waiting for capacity). */
        NotRunning: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The session's application did not answer; it may be restarting. */
        AppUnreachable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The name is not allowed, in words (`detail` a sentence); or, as at every session endpoint, the session id is malformed (`detail` the list of what is wrong, as in ValidationFailed). */
        FileNameRefused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"] | components["schemas"]["HTTPValidationError"];
            };
        };
        /** @description Why the viewer was not connected, in words (the application's own, or the service's). */
        DoorRefusal: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
        /** @description The caller is not authenticated or lacks the right. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description Not found. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The session failed; the reason is in detail. Answered for 10 minutes, then 404. */
        Gone: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The body is over 64 KiB. */
        TooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The request is invalid; each entry names where (`loc`), what (`msg`) and a Pydantic v2 type name. */
        ValidationFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPValidationError"];
            };
        };
        /** @description Too many sessions created by this caller in a short time, or as many running or waiting as one user may have (`STREAMGATE_USER_LIMIT`). */
        TooManyRequests: {
            headers: {
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description Every GPU is busy and the queue is full. */
        QueueFull: {
            headers: {
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The request line is over 16 KiB. */
        UriTooLong: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The request's headers are over 16 KiB in all. */
        HeadersTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description Unexpected failure. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
    };
    parameters: {
        AppId: components["schemas"]["Identifier"];
        AppIdOrWildcard: components["schemas"]["IdentifierOrWildcard"];
        Version: components["schemas"]["SemVer"];
        VersionOrWildcard: components["schemas"]["SemVer"] | "*";
        SessionId: components["schemas"]["SessionId"];
        /** @description One file of the folder (percent-encoded); protocol/files.ts `fileNameProblem` says which are allowed. */
        FileName: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listApps: {
        parameters: {
            query?: {
                tags?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The applications. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApplicationList"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The application. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The versions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VersionList"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["AppId"];
                version: components["parameters"]["Version"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VersionDetail"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["AppIdOrWildcard"];
                version: components["parameters"]["VersionOrWildcard"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profiles (an empty list when none apply). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProfileList"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["AppIdOrWildcard"];
                version: components["parameters"]["VersionOrWildcard"];
                profile: components["schemas"]["Identifier"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listSessions: {
        parameters: {
            query?: {
                offset?: number;
                limit?: number;
                state?: "live" | "ended";
                /** @description Only this person's sessions; another person's name is for admins only (403). */
                user?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            403: components["responses"]["Forbidden"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreamRequest"];
            };
        };
        responses: {
            /** @description Session created and ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Session being prepared (no routes). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["QueueFull"];
        };
    };
    deleteSessionByBody: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeleteRequest"];
            };
        };
        responses: {
            /** @description The session was ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is ready; routes are present. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description The session is pending; same body without routes. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session was ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    createTicket: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TicketRequest"];
            };
        };
        responses: {
            /** @description The ticket. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    stopSharing: {
        parameters: {
            query: {
                /** @description The tickets to revoke; only `watch` tickets can be. */
                scope: "watch";
            };
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sharing is stopped. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            /** @description The application did not answer; links shared so far may still work there. Try again: each try tells it again. */
            503: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    extendSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ExtendRequest"];
            };
        };
        responses: {
            /** @description The session, with its new `ends_at`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The session is not running yet (its lifetime starts once it does), or the place it runs does not let it run longer (a Slurm cluster that refuses to raise its job's time limit). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            /** @description The new end could not be saved; try again later. */
            503: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    doorOffer: {
        parameters: {
            query?: {
                /** @description `watch` to connect without control. */
                mode?: "watch" | "control";
            };
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/sdp": string;
            };
        };
        responses: {
            /** @description The SDP answer. */
            201: {
                headers: {
                    /** @description The viewer's resource, to DELETE when leaving. */
                    Location?: string;
                    /** @description The TURN relays with their credentials, one header per URL. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/sdp": string;
                };
            };
            400: components["responses"]["DoorRefusal"];
            401: components["responses"]["DoorRefusal"];
            403: components["responses"]["DoorRefusal"];
            404: components["responses"]["DoorRefusal"];
            413: components["responses"]["DoorRefusal"];
            415: components["responses"]["DoorRefusal"];
            429: components["responses"]["DoorRefusal"];
            502: components["responses"]["DoorRefusal"];
            503: components["responses"]["DoorRefusal"];
        };
    };
    doorLeave: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
                viewer_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The viewer is gone. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["DoorRefusal"];
            403: components["responses"]["DoorRefusal"];
            404: components["responses"]["DoorRefusal"];
            502: components["responses"]["DoorRefusal"];
        };
    };
    getSessionStill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The still. */
            200: {
                headers: {
                    /** @description `no-store`: the next request may see a newer picture. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                    "image/jpeg": string;
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description `zip` for the whole folder as one archive. */
                format?: "zip";
            };
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The folder's entries, by name; or the zip archive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilesListing"];
                    "application/zip": string;
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["NotRunning"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            502: components["responses"]["AppUnreachable"];
        };
    };
    downloadFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
                /** @description One file of the folder (percent-encoded); protocol/files.ts `fileNameProblem` says which are allowed. */
                name: components["parameters"]["FileName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    /** @description `attachment` with the file's name (RFC 6266, `filename*` for names beyond ASCII). */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["NotRunning"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["FileNameRefused"];
            431: components["responses"]["HeadersTooLarge"];
            502: components["responses"]["AppUnreachable"];
        };
    };
    uploadFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
                /** @description One file of the folder (percent-encoded); protocol/files.ts `fileNameProblem` says which are allowed. */
                name: components["parameters"]["FileName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description The file is there, under its name. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileEntry"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["NotRunning"];
            410: components["responses"]["Gone"];
            /** @description The upload did not say its length (`Content-Length`). */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The file is larger than the session's whole folder. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["FileNameRefused"];
            431: components["responses"]["HeadersTooLarge"];
            502: components["responses"]["AppUnreachable"];
            /** @description The file does not fit in what is left of the folder; the sentence says how much is. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    deleteFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["SessionId"];
                /** @description One file of the folder (percent-encoded); protocol/files.ts `fileNameProblem` says which are allowed. */
                name: components["parameters"]["FileName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file is gone. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["NotRunning"];
            410: components["responses"]["Gone"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["FileNameRefused"];
            431: components["responses"]["HeadersTooLarge"];
            502: components["responses"]["AppUnreachable"];
        };
    };
    getCapacity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The capacity figures. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Capacity"];
                };
            };
            403: components["responses"]["Forbidden"];
            414: components["responses"]["UriTooLong"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Only events at or after this time: RFC 3339 with its offset (`2025-01-31T09:00:00Z`), or a date (`2025-01-31`, midnight UTC); anything else is a 422 at `since`. */
                since?: string;
                /** @description Only events of this person. */
                user?: string;
                action?: components["schemas"]["AuditAction"];
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The newest events that match, at most `limit`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditLog"];
                    "text/csv": string;
                };
            };
            403: components["responses"]["Forbidden"];
            414: components["responses"]["UriTooLong"];
            422: components["responses"]["ValidationFailed"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
}
