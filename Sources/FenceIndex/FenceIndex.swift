// FenceIndex
