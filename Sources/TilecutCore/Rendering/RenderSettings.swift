import Foundation

/// What shapes the pixels and the choice of tiles, beyond the plan.
public struct RenderSettings: Sendable {
  public var template: TileNameTemplate
  public var background: ColorRule?
  public var knockout: ColorRule?
  public var shard: ShardSelector?

  public init(template: TileNameTemplate, background: ColorRule? = nil, knockout: ColorRule? = nil, shard: ShardSelector? = nil) {
    self.template = template
    self.background = background
    self.knockout = knockout
    self.shard = shard
  }
}
