/// `target.kf.indicatorType`: the indicator a ``KingfisherImageTarget`` shows while loading.
extension KingfisherWrapper where Base: KingfisherImageTarget {
    /// Which indicator the target shows while loading. Setting it makes the indicator and hands it to the target
    /// (``KingfisherImageTarget/addIndicator(_:)``), taking the previous one away; a load under way starts it.
    /// `.none` by default.
    public var indicatorType: IndicatorType {
        get { base.kingfisherState.indicatorType }
        nonmutating set {
            let target = base
            let state = target.kingfisherState
            let indicator = newValue.makeIndicator()
            let (previous, isLoading) = state.replaceIndicator(type: newValue, with: indicator)
            state.actions.submit {
                if let previous {
                    previous.stopAnimatingView()
                    target.removeIndicator(previous)
                }
                if let indicator {
                    target.addIndicator(indicator)
                    if isLoading { indicator.startAnimatingView() }
                }
            }
        }
    }

    /// The indicator made for ``indicatorType``; `nil` for `.none`.
    public var indicator: (any Indicator)? {
        base.kingfisherState.indicator
    }
}
