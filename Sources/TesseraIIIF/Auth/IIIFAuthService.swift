/// A service of the IIIF Authorization Flow API 2.0, as a resource lists it: the probe service
/// (`AuthProbeService2`), which names the access service (`AuthAccessService2`, profile `active`:
/// a login page), which names its token service (`AuthAccessTokenService2`) and logout service
/// (`AuthLogoutService2`). Members not set are left out.
public struct IIIFAuthService: Sendable, Hashable, Encodable {
    /// The service's URL.
    public var id: String
    /// `AuthProbeService2`, `AuthAccessService2`, `AuthAccessTokenService2` or `AuthLogoutService2`.
    public var type: String
    /// `active` for an access service whose page the user interacts with.
    public var profile: String?
    /// What a client shows for it: the access service's title, the logout service's link.
    public var label: LanguageMap?
    /// The access service's heading and note, shown beside the substitute.
    public var heading: LanguageMap?
    /// The access service's explanation.
    public var note: LanguageMap?
    /// The access service's button text.
    public var confirmLabel: LanguageMap?
    /// The services this one names.
    public var service: [IIIFAuthService]?

    /// The probe service at `probe` with an active access service at `access`, its token service at
    /// `token` and logout service at `logout`, and the texts a client shows.
    ///
    /// - Parameters:
    ///   - probe: the probe service's URL (one per resource).
    ///   - access: the login page's URL.
    ///   - token: the token service's URL.
    ///   - logout: the logout service's URL.
    ///   - label: the access service's title.
    ///   - heading: its heading.
    ///   - note: its note.
    ///   - confirmLabel: its button.
    ///   - logoutLabel: the logout service's label.
    public static func probe(
        _ probe: String, access: String, token: String, logout: String, label: String, heading: String, note: String,
        confirmLabel: String, logoutLabel: String
    ) -> IIIFAuthService {
        let tokenService = IIIFAuthService(id: token, type: "AuthAccessTokenService2")
        let logoutService = IIIFAuthService(id: logout, type: "AuthLogoutService2", label: LanguageMap([logoutLabel], language: "en"))
        let accessService = IIIFAuthService(
            id: access, type: "AuthAccessService2", profile: "active", label: LanguageMap([label], language: "en"),
            heading: LanguageMap([heading], language: "en"), note: LanguageMap([note], language: "en"),
            confirmLabel: LanguageMap([confirmLabel], language: "en"),
            service: [tokenService, logoutService])
        return IIIFAuthService(id: probe, type: "AuthProbeService2", service: [accessService])
    }

    /// A service of `type` at `id`, with the members given.
    ///
    /// - Parameters:
    ///   - id: the service's URL.
    ///   - type: its type (`AuthProbeService2`, …).
    ///   - profile: `active` for an access service.
    ///   - label: its label.
    ///   - heading: an access service's heading.
    ///   - note: an access service's note.
    ///   - confirmLabel: an access service's button.
    ///   - service: the services it names.
    public init(
        id: String, type: String, profile: String? = nil, label: LanguageMap? = nil, heading: LanguageMap? = nil,
        note: LanguageMap? = nil, confirmLabel: LanguageMap? = nil, service: [IIIFAuthService]? = nil
    ) {
        self.id = id
        self.type = type
        self.profile = profile
        self.label = label
        self.heading = heading
        self.note = note
        self.confirmLabel = confirmLabel
        self.service = service
    }
}

/// What a probe service answers (`AuthProbeResult2`): whether the requester may see the resource
/// (`status` 200) or not (401, 403), and if not, the substitute it may see and why.
public struct IIIFAuthProbeResult: Sendable, Hashable, Encodable {
    /// `http://iiif.io/api/auth/2/context.json`.
    public var context = "http://iiif.io/api/auth/2/context.json"
    /// The probe service's URL.
    public var id: String
    /// `AuthProbeResult2`.
    public var type = "AuthProbeResult2"
    /// 200 when the requester may see the resource, else 401 or 403.
    public var status: Int
    /// What the requester may see instead, when there is something.
    public var substitute: [ContentResource]?
    /// Why not, shown by the client (when `status` is not 200).
    public var heading: LanguageMap?
    /// More on why not.
    public var note: LanguageMap?

    /// The result of probing `id`: `status`, and when it is not 200, what may be seen instead and why.
    ///
    /// - Parameters:
    ///   - id: the probe service's URL.
    ///   - status: 200, 401 or 403.
    ///   - substitute: what may be seen instead.
    ///   - heading: why not.
    ///   - note: more on why not.
    public init(id: String, status: Int, substitute: [ContentResource]? = nil, heading: LanguageMap? = nil, note: LanguageMap? = nil) {
        self.id = id
        self.status = status
        self.substitute = substitute
        self.heading = heading
        self.note = note
    }

    private enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, status, substitute, heading, note
    }

    /// The result as JSON.
    public func json() -> String { PresentationJSON.compact(self) }
}
